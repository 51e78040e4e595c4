// The vendor key (docs/reference/http-api.md §10): the one string two inbox documents must share
// to come from the same vendor. A tax id beats a name; the two never compare
// equal because of their prefixes. Pure.
import type { InboxDocument } from './books.js';

/**
 * Legal-form words removed (repeatedly) from the end of a normalised vendor
 * name, exactly the list of §5.4. They are matched after punctuation removal,
 * so `S.A.`, `e.V.` and `s.r.o.` arrive here as `sa`, `ev` and `sro`.
 */
export const LEGAL_FORM_WORDS: readonly string[] = Object.freeze([
  'gmbh',
  'mbh',
  'ag',
  'kg',
  'ohg',
  'ug',
  'ev',
  'ltd',
  'limited',
  'plc',
  'llp',
  'llc',
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'bv',
  'nv',
  'oy',
  'ab',
  'as',
  'aps',
  'kft',
  'sro',
  'pty',
  'pte',
]);

const LEGAL_FORMS: ReadonlySet<string> = new Set(LEGAL_FORM_WORDS);

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
const PUNCTUATION = /\p{P}+/gu;
const WHITESPACE_RUN = /\s+/gu;

export type VendorFields = Pick<InboxDocument['extracted'], 'vendor_name' | 'vendor_tax_id'>;

/**
 * `tax:` + the normalised tax id when it has one, else `name:` + the
 * normalised name, else null (the vendor is missing and no vendor rule can
 * match). A tax id that normalises to the empty string counts as missing, so
 * the name is used instead.
 */
export function vendorKey(extracted: VendorFields): string | null {
  const taxId = normaliseTaxId(extracted.vendor_tax_id);
  if (taxId !== null) return `tax:${taxId}`;
  const name = normaliseVendorName(extracted.vendor_name);
  return name === null ? null : `name:${name}`;
}

/** NFKC, upper-cased, everything but Unicode letters and digits removed; empty → null. */
export function normaliseTaxId(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const id = raw.normalize('NFKC').toUpperCase().replace(NOT_LETTER_OR_DIGIT, '');
  return id === '' ? null : id;
}

/**
 * NFKC, case-folded, punctuation (\p{P}) removed, whitespace runs collapsed to
 * one space, trimmed, trailing legal-form words removed until none is left;
 * empty → null. Symbols (\p{S}: `+`, `®`, `€`) are kept: §5.4 removes
 * punctuation only.
 */
export function normaliseVendorName(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const text = foldCase(raw.normalize('NFKC')).replace(PUNCTUATION, '').replace(WHITESPACE_RUN, ' ').trim();
  if (text === '') return null;
  const words = text.split(' ');
  while (words.length > 0 && LEGAL_FORMS.has(words[words.length - 1] as string)) words.pop();
  return words.length === 0 ? null : words.join(' ');
}

/**
 * Unicode full case folding as far as JavaScript allows: lower, upper, lower,
 * then NFKC again. The round trip through upper case gives the full foldings
 * `toLowerCase` alone misses (`ß`/`ẞ` → `ss`, `ſ` → `s`, `ς` ≡ `σ`, iota
 * subscript). Checked against Python's `str.casefold` over every assigned code
 * point: the only difference is that dotless `ı` folds to `i`.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
}
