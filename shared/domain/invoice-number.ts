// Invoice number normalisation (docs/reference/http-api.md §10): two documents carry the same
// invoice number when these strings are equal. Pure.

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
const LEADING_ZEROS = /^0+/;

/**
 * NFKC, upper-cased, every character that is not a Unicode letter or digit
 * removed, then the leading zeros of the whole string removed (ASCII `0`,
 * which NFKC also makes of full-width `０`). `RE-0042` → `RE0042`,
 * `re 0042` → `RE0042`, `0007` → `7`. Empty (including `0`, `000`, `--`) →
 * null: the number is missing.
 */
export function normaliseInvoiceNumber(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const number = raw.normalize('NFKC').toUpperCase().replace(NOT_LETTER_OR_DIGIT, '').replace(LEADING_ZEROS, '');
  return number === '' ? null : number;
}
