// Whether the store refused a write for good: the document itself is what it
// cannot take, so the same write fails on every attempt (docs/design/staged-lifecycle.md
// "Crash safety"). An apply meeting one undoes what it wrote and ends
// `failed`, rather than being retried by its job and the recovery sweep
// without end. Anything else (a lost connection, a server stepping down) may
// pass, and is left to the retries.

/** MongoDB codes of a document refused for what it holds: BadValue, DocumentValidationFailure, BSONObjectTooLarge, KeyTooLong. */
const REFUSED_CODES = new Set([2, 121, 10334, 17280]);

/**
 * FerretDB on PostgreSQL passes PostgreSQL's refusal on in the message:
 * SQLSTATE class 22 is a data exception (22P05: a NUL or an escape jsonb
 * cannot hold; 22021: a byte sequence invalid in the encoding).
 */
const DATA_EXCEPTION = /SQLSTATE 22[0-9A-Z]{3}/;

/** The store's reason when `err` is a refusal of the written document itself, else null. */
export function storeRefusal(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const e = err as Error & {
    code?: unknown;
    errmsg?: unknown;
    writeErrors?: Array<{ code?: unknown; errmsg?: unknown }> | { code?: unknown; errmsg?: unknown };
  };
  const first = Array.isArray(e.writeErrors) ? e.writeErrors[0] : e.writeErrors;
  for (const { code, messages } of [
    { code: first?.code, messages: [first?.errmsg] },
    { code: e.code, messages: [e.errmsg, e.message] },
  ]) {
    const text = messages.filter((m): m is string => typeof m === 'string').join('\n');
    const state = DATA_EXCEPTION.exec(text);
    if (state) return state[0];
    if (typeof code === 'number' && REFUSED_CODES.has(code)) return `code ${code}`;
  }
  return null;
}
