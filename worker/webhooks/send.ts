// One delivery attempt (docs/reference/webhooks.md "Delivery"): POST the raw JSON with
// the event id and signature headers; a 2xx within the time-out is
// delivered, anything else (another status, a redirect, which is never
// followed, a time-out, a refused address) is a failed attempt. Unless
// insecure endpoints are allowed, the address is checked after the name is
// resolved, on the very address the connection uses.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress, urlProblem } from '../../shared/webhook-address.js';

export interface SendResult {
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface SendSettings {
  timeoutMs: number;
  allowInsecure: boolean;
}

/** A DNS lookup that refuses forbidden addresses, so the check and the connection use the same address. */
const safeLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 4);
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad || addresses.length === 0)
      return callback(
        Object.assign(new Error(`forbidden address ${bad?.address ?? 'none'} for ${hostname}`), {
          code: 'EFORBIDDENADDRESS',
        }),
        '',
        4,
      );
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export function sendEvent(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  settings: SendSettings,
): Promise<SendResult> {
  const started = Date.now();
  const done = (r: Omit<SendResult, 'duration_ms'>): SendResult => ({ ...r, duration_ms: Date.now() - started });
  const problem = urlProblem(rawUrl, settings.allowInsecure);
  if (problem) return Promise.resolve(done({ ok: false, status_code: null, error: problem }));
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!settings.allowInsecure && isIP(host) !== 0 && isForbiddenAddress(host))
    return Promise.resolve(done({ ok: false, status_code: null, error: 'forbidden_address' }));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'duration_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(r));
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'bookstage-webhooks/1',
          ...headers,
        },
        ...(settings.allowInsecure ? {} : { lookup: safeLookup }),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed; reading it lets the connection close cleanly.
        res.resume();
        res.on('end', () => finish({ ok: status >= 200 && status < 300, status_code: status, error: null }));
        res.on('error', () => finish({ ok: false, status_code: status, error: 'response_error' }));
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status_code: null, error: 'timeout' });
      req.destroy();
    }, settings.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({
        ok: false,
        status_code: null,
        error: err.code === 'EFORBIDDENADDRESS' ? 'forbidden_address' : (err.code ?? 'request_error'),
      }),
    );
    req.end(body);
  });
}
