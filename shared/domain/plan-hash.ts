import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS whose typings declare an ES default export; under
// NodeNext the default import *is* module.exports, the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** RFC 8785 (JCS) canonical JSON. */
export function canonicalJson(value: unknown): string {
  const canonical = canonicalize(value);
  if (canonical === undefined) throw new TypeError('value is not JSON-serialisable');
  return canonical;
}

/** Hex SHA-256 of the canonical JSON of a plan. */
export function planHash(plan: unknown): string {
  return createHash('sha256').update(canonicalJson(plan), 'utf8').digest('hex');
}
