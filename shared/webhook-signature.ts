// The signature of a webhook delivery (docs/reference/webhooks.md): header
// `Bookstage-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
// keyed by the endpoint's secret. Used by the worker to sign, by
// `bookstage events tail --forward-to` to sign, and by receivers to verify.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Bookstage-Signature';
export const EVENT_ID_HEADER = 'Bookstage-Event-Id';

export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${rawBody}`)}`;
}

/**
 * Whether `header` signs `rawBody` with `secret` and its time is within
 * `toleranceS` of `nowS` (a replayed old delivery is refused).
 */
export function verifySignature(
  secret: string,
  rawBody: string,
  header: string,
  nowS: number,
  toleranceS = 300,
): boolean {
  const parts = new Map(
    header.split(',').map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(hmacHex(secret, `${t}.${rawBody}`), 'hex'), Buffer.from(given, 'hex'));
}

function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}
