import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

// canonicalize is CommonJS (`module.exports = serialize`) whose typings declare
// an ES default export, so under NodeNext its default import is typed as an
// object holding `default`. Loading it with require gives the function itself,
// typed by its own declaration.
const canonicalize = createRequire(import.meta.url)('canonicalize') as typeof import('canonicalize').default;

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
