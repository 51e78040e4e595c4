// Building blocks shared by the request and import schemas. Bounds are part
// of the contract: every string and array has a maximum.
import { SAFE_TEXT_PATTERN } from '../domain/safe-text.js';

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
/** The free-text rule, shared with the statement import's parsers (shared/domain/safe-text.ts). */
export { SAFE_TEXT_PATTERN };
export const text = (maxLength: number) => ({ type: 'string', maxLength, pattern: SAFE_TEXT_PATTERN }) as const;
export const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] }) as const;
