// Where a webhook may be sent (docs/reference/webhooks.md "Safety"): https only, and
// never to a loopback, private, link-local, shared, documentation, multicast or
// metadata address — unless the operator allows it (WEBHOOK_ALLOW_INSECURE=true,
// for local development and the tests). The address is checked once the name is
// resolved, at send time (worker/webhooks/send.ts), so a name that later
// points inside the network is refused too. An IPv6 address that carries an
// IPv4 one (IPv4-compatible, IPv4-mapped, IPv4-translated, 6to4, NAT64) is
// judged as that IPv4 address; the ranges themselves are Node's BlockList.
import { BlockList, isIP } from 'node:net';

const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blockedV4.addSubnet(net, prefix, 'ipv4');

const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['::1', 128],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['fd00:ec2::', 32],
] as const)
  blockedV6.addSubnet(net, prefix, 'ipv6');

/** The IPv6 prefixes whose addresses carry an IPv4 one, and at which 16-bit group it starts. */
const carriers: ReadonlyArray<{ list: BlockList; group: number }> = (
  [
    // IPv4-compatible ::a.b.c.d (deprecated; :: and ::1 are in it too, and judged as 0.0.0.0 and 0.0.0.1).
    ['::', 96, 6],
    // IPv4-mapped ::ffff:a.b.c.d.
    ['::ffff:0:0', 96, 6],
    // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765).
    ['::ffff:0:0:0', 96, 6],
    // NAT64, the well-known prefix 64:ff9b::a.b.c.d (RFC 6052).
    ['64:ff9b::', 96, 6],
    // 6to4 2002:aabb:ccdd::/48 (RFC 3056).
    ['2002::', 16, 1],
  ] as const
).map(([net, prefix, group]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, 'ipv6');
  return { list, group };
});

/** The eight 16-bit groups of an IPv6 address (null: not one), read from its canonical form as the URL parser writes it. */
function ipv6Groups(address: string): number[] | null {
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  // The serialiser writes lower-case hex groups, at most one `::`, never a dotted IPv4 tail.
  const [head, tail] = host.split('::') as [string, string | undefined];
  const read = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const before = read(head);
  const after = read(tail);
  const groups =
    tail === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Whether an IP address is one a webhook must never reach (loopback, private, link-local incl. 169.254.169.254, …). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, 'ipv4');
  if (family !== 6) return true;
  // A zone index (fe80::1%eth0) names a local link: the URL parser refuses it, and so is it refused here.
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const canonical = groups.map((g) => g.toString(16)).join(':');
  for (const { list, group } of carriers) {
    if (!list.check(canonical, 'ipv6')) continue;
    const hi = groups[group]!;
    const lo = groups[group + 1]!;
    return blockedV4.check(`${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`, 'ipv4');
  }
  return blockedV6.check(canonical, 'ipv6');
}

/** A host name without its trailing dots, lower case: `localhost.` and `LOCALHOST` are `localhost`. */
function bareName(host: string): string {
  return host.replace(/\.+$/, '').toLowerCase();
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
  const name = bareName(host);
  if (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal')) return 'forbidden_address';
  return null;
}
