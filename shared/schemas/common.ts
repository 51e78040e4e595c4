// Building blocks shared by the request and import schemas. Bounds are part
// of the contract: every string and array has a maximum.

export const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Record ids: a type prefix and safe characters (`le_12`, `ba_main`). No `:`, which separates lock keys. */
export const id = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' } as const;
export const isoDate = { type: 'string', format: 'date', maxLength: 10 } as const;
export const timestamp = { type: 'string', format: 'date-time', maxLength: 40 } as const;
export const currency = { type: 'string', maxLength: 3, pattern: '^[A-Z]{3}$' } as const;
/** Signed money in integer minor units, within JavaScript's safe integers. */
export const minor = { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE } as const;
export const nonNegativeMinor = { type: 'integer', minimum: 0, maximum: MAX_SAFE } as const;
export const positiveMinor = { type: 'integer', minimum: 1, maximum: MAX_SAFE } as const;
export const version = { type: 'integer', minimum: 1, maximum: MAX_SAFE } as const;
/**
 * Free text may not hold C0 control characters other than tab, LF and CR, DEL,
 * or bidirectional override and isolate controls (U+202A–U+202E,
 * U+2066–U+2069), nor a lone UTF-16 surrogate: NUL cannot be stored by
 * FerretDB on PostgreSQL, a lone surrogate is stored as U+FFFD (so the stored
 * text, and a plan_hash over it, would differ from the request's), and the
 * others can make a reviewer read a note other than the one stored
 * (docs/reference/http-api.md §5). Ajv compiles patterns with the `u` flag, under which
 * `[\uD800-\uDFFF]` matches only an unpaired surrogate, never half of a pair.
 */
export const SAFE_TEXT_PATTERN =
  '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F\\u202A-\\u202E\\u2066-\\u2069\\uD800-\\uDFFF]*$';
export const text = (maxLength: number) => ({ type: 'string', maxLength, pattern: SAFE_TEXT_PATTERN }) as const;
export const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] }) as const;
