// Opaque list cursors: base64url of JSON `{v, list, at, mac}`. `at` is the
// position the list continues after (any JSON the list chooses, including
// the query parameters it was issued for); `mac` is an HMAC-SHA256 with the
// server's secret over the version, the list's name, the organisation and
// `at`. So a cursor is only accepted by the list and organisation it was
// issued for, and any change to it is detected. Cursors carry no expiry: a
// position stays meaningful while the data does not change.
import { createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 1;
const MAC_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CursorBinding {
  /** The list it belongs to, e.g. `inbox_duplicates`. */
  list: string;
  org_id: string;
}

export function sealCursor(secret: string, binding: CursorBinding, at: unknown): string {
  const json = JSON.stringify({ v: VERSION, list: binding.list, at, mac: mac(secret, binding, at) });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** The position a cursor carries; null for anything this service did not issue for this list and organisation. */
export function openCursor(secret: string, binding: CursorBinding, cursor: string): unknown {
  if (!BASE64URL.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node's decoder forgives some malformations: only the canonical spelling is accepted.
  if (bytes.toString('base64url') !== cursor) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { v, list, at, mac: given } = parsed as Record<string, unknown>;
  if (v !== VERSION || list !== binding.list || typeof given !== 'string' || at === undefined) return null;
  const expected = Buffer.from(mac(secret, binding, at), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  return at;
}

function mac(secret: string, binding: CursorBinding, at: unknown): string {
  return createHmac('sha256', secret)
    .update(JSON.stringify([VERSION, binding.list, binding.org_id, at]), 'utf8')
    .digest()
    .subarray(0, MAC_BYTES)
    .toString('base64url');
}
