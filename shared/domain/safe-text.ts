// The free-text rule (docs/reference/http-api.md §5): one pattern for the
// API's JSON bodies (Ajv, shared/schemas/common.ts) and for the text read
// from a statement file (docs/guide/statement-import.md "Unreadable files").

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

/** The characters SAFE_TEXT_PATTERN refuses, as one class: `^[^…]*$` → `[…]`. */
const UNSAFE = new RegExp(SAFE_TEXT_PATTERN.replace(/^\^\[\^/, '[').replace(/\]\*\$$/, ']'), 'u');

/** The first character of `text` the free-text rule refuses, as `U+XXXX`, or null when there is none. */
export function unsafeCharacter(text: string): string | null {
  const m = UNSAFE.exec(text);
  if (m === null) return null;
  return `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
