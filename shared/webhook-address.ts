// Where a webhook may be sent (docs/reference/webhooks.md "Safety"): https only, and
// never to a loopback, private, link-local, shared, multicast or metadata
// address — unless the operator allows it (WEBHOOK_ALLOW_INSECURE=true, for
// local development and the tests). The address is checked once the name is
// resolved, at send time (worker/webhooks/send.ts), so a name that later
// points inside the network is refused too.
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['fd00:ec2::', 32],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** Whether an IP address is one a webhook must never reach (loopback, private, link-local incl. 169.254.169.254, …). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // IPv4-mapped (::ffff:10.0.0.1) is judged as the IPv4 address it maps.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return blocked.check(address, 'ipv4');
}

/** Why a URL may not be a webhook endpoint (null: it may), before any name is resolved. */
export function urlProblem(raw: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not_a_url';
  }
  if (url.username || url.password) return 'credentials_in_url';
  if (allowInsecure) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'not_https';
  if (url.protocol !== 'https:') return 'not_https';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && isForbiddenAddress(host)) return 'forbidden_address';
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal')) return 'forbidden_address';
  return null;
}
