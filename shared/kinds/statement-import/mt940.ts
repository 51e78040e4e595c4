// SWIFT MT940, read with mt940js (docs/guide/statement-import.md "Formats"). The
// library checks opening + Σ lines = closing and throws otherwise; here that
// one check is left out, because an out-of-balance statement is reported as a
// warning for the reviewer, never refused or "fixed". Field 86 is read in both
// common dialects: `?NN` subfields (German banks: ?20–?29 and ?60–?63
// remittance, ?32/?33 name, ?31 IBAN) and `/TAG/` (Dutch banks: /NAME/,
// /REMI/, /IBAN/).
import mt940js, { type Mt940Statement, type Mt940Transaction } from 'mt940js';
import { decimalToMinor } from './money.js';
import {
  StatementParseError,
  StatementRefusal,
  type ParsedStatement,
  type ParsedStatementFile,
  type StatementEntry,
} from './model.js';
import { isStatementDate } from './parsed-checks.js';

class BalanceTolerantParser extends mt940js.Parser {
  // why: the method is the library's (1.3.5, pinned); only its turnover check is skipped.
  _validateGroup(group: unknown, idx: number): void {
    try {
      (mt940js.Parser.prototype as unknown as { _validateGroup: (g: unknown, i: number) => void })._validateGroup.call(
        this,
        group,
        idx,
      );
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('Sum of lines')) return;
      throw error;
    }
  }
}

const parser = new BalanceTolerantParser();

/** A tag as mt940js keeps it (`parse(text, true)`): its number, its text after `:NN[X]:`, and the pattern it was read by. */
interface RawTag {
  id: number | string;
  data: string;
  re: RegExp;
}

/** The exact values of a balance (:60:, :62:) or a statement line (:61:), read again from the tag's text. */
interface ExactTag {
  minor: number;
  date: string;
  /** :61: only: the entry (booking) date, when the line gives one. */
  entry_date: string | null;
}

/** The line of `text` where tag `id` with `data` starts. */
function tagLine(text: string, id: number | string, data: string): string {
  const first = data.split('\n')[0]!;
  const index = text.split(/\r?\n/).findIndex((l) => new RegExp(`^:${id}[A-Z]?:`).test(l) && l.includes(first));
  return index >= 0 ? `line ${index + 1}` : `tag :${id}:`;
}

/** YYMMDD as mt940js reads it (20YY), refused when it is no calendar day (mt940js would roll 261345 over into 2027). */
function yymmdd(yy: string, mm: string, dd: string, fail: (reason: string) => never): string {
  const iso = `20${yy}-${mm}-${dd}`;
  if (!isStatementDate(iso)) fail(`not a calendar date: "${yy}${mm}${dd}"`);
  return iso;
}

/** :61:'s entry date MMDD in the year that puts it nearest the value date (a line of 31 December booked on 2 January). */
function entryDay(valueDate: string, mm: string, dd: string, fail: (reason: string) => never): string {
  const year = Number(valueDate.slice(0, 4));
  const value = Date.parse(valueDate);
  const near = [year - 1, year, year + 1]
    .map((y) => `${String(y).padStart(4, '0')}-${mm}-${dd}`)
    .filter(isStatementDate)
    .map((iso) => ({ iso, distance: Math.abs(Date.parse(iso) - value) }))
    .sort((a, b) => a.distance - b.distance)[0];
  // Half a year apart at most: anything further is no entry date of this line.
  if (near === undefined || near.distance > 183 * 86_400_000) fail(`not an entry date near ${valueDate}: "${mm}${dd}"`);
  return near.iso;
}

/** The exact amount (from the text, never mt940js' float) and checked dates of a :60:, :61: or :62: tag. */
function exactTag(text: string, tag: RawTag, currency: string): ExactTag {
  try {
    return readExact(tag, currency);
  } catch (error) {
    // The line is looked for only when a tag is refused: finding it is a scan of the whole text.
    const location = tagLine(text, tag.id, tag.data);
    if (error instanceof StatementParseError) throw new StatementParseError('mt940', location, error.reason);
    if (error instanceof StatementRefusal)
      throw new StatementRefusal(error.code, { ...error.details, field: location });
    throw error;
  }
}

function readExact(tag: RawTag, currency: string): ExactTag {
  const fail = (reason: string): never => {
    throw new StatementParseError('mt940', '', reason);
  };
  const m = tag.re.exec(tag.data);
  if (m === null) fail(`cannot read tag ${tag.id}`);
  const g = m!;
  const line = tag.id === 61;
  // :61: date YYMMDD, entry date MMDD, mark R?[DC], funds code, amount; :60:/:62: mark [DC], date, currency, amount.
  const [mark, yy, mm, dd, amount] = line ? [g[7]!, g[1]!, g[2]!, g[3]!, g[9]!] : [g[1]!, g[2]!, g[3]!, g[4]!, g[6]!];
  const date = yymmdd(yy, mm, dd, fail);
  const unsigned = decimalToMinor(amount, currency, { format: 'mt940', location: '' }, ',');
  // D is money out; R reverses the mark that follows it (RC a reversed credit: money out).
  const negative = (mark.endsWith('D') ? 1 : 0) + (mark.startsWith('R') ? 1 : 0) === 1;
  return {
    minor: negative && unsigned !== 0 ? -unsigned : unsigned,
    date,
    entry_date: line && g[4] !== undefined ? entryDay(date, g[5]!, g[6]!, fail) : null,
  };
}

function joined(sub: Record<string, string>, keys: string[]): string | null {
  const parts = keys.map((k) => sub[k]).filter((v): v is string => v !== undefined && v.trim() !== '');
  return parts.length === 0 ? null : parts.join(' ').replace(/\s+/g, ' ').trim();
}

const GERMAN_REMITTANCE = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];

function field86(t: Mt940Transaction): { name: string | null; iban: string | null; remittance: string | null } {
  const sub = t.structuredDetails ?? {};
  if ('NAME' in sub || 'REMI' in sub || 'IBAN' in sub || 'CNTP' in sub) {
    // /CNTP/ is IBAN/BIC/name/city; a value's closing slash is the separator, not text.
    const cntp = (sub['CNTP'] ?? '').split('/');
    const clean = (v: string | null | undefined) =>
      v === null || v === undefined ? null : v.replace(/\/+$/, '').trim() || null;
    return {
      name: clean(joined(sub, ['NAME'])) ?? clean(cntp[2]),
      iban: clean(joined(sub, ['IBAN'])) ?? clean(cntp[0]),
      remittance: clean(joined(sub, ['REMI'])?.replace(/^USTD\/\/?/, '')),
    };
  }
  if (GERMAN_REMITTANCE.some((k) => k in sub) || '32' in sub) {
    const iban = sub['31']?.trim() ?? null;
    return {
      name: joined(sub, ['32', '33']),
      iban: iban !== null && /^[A-Z]{2}\d{2}/.test(iban) ? iban : null,
      remittance: joined(sub, GERMAN_REMITTANCE),
    };
  }
  const text = t.details.replace(/\s*\n\s*/g, ' ').trim();
  return { name: null, iban: null, remittance: text === '' ? null : text };
}

function entry(t: Mt940Transaction, exact: ExactTag): StatementEntry {
  const f86 = field86(t);
  return {
    // :61: gives the value date first and the entry (booking) date as an optional MMDD.
    booking_date: exact.entry_date ?? exact.date,
    value_date: exact.date,
    amount_minor: exact.minor,
    currency: t.currency,
    // Only the bank's reference (after //) names one booking; the customer reference before it is the
    // account owner's (a monthly rent's `MIETE`), shared by many (duplicate rule 1).
    bank_reference: t.bankReference.trim() !== '' ? t.bankReference.trim() : null,
    counterparty_name: f86.name,
    counterparty_iban: f86.iban,
    remittance_info: f86.remittance,
    details: [],
    pending: false,
  };
}

function statement(s: Mt940Statement & { tags?: RawTag[] }, text: string): ParsedStatement {
  const tags = s.tags ?? [];
  const exact = (id: number) => tags.filter((t) => t.id === id).map((t) => exactTag(text, t, s.currency));
  const opening = exact(60).at(-1);
  const closing = exact(62).at(-1);
  const lines = exact(61);
  if (opening === undefined || closing === undefined || lines.length !== s.transactions.length)
    throw new StatementParseError('mt940', 'line 1', 'the statement has no readable balances');
  const id = s.accountIdentification.trim();
  const compact = id.replace(/\s/g, '').toUpperCase();
  return {
    reference: [s.transactionReference, s.number.statement, s.number.sequence].filter((p) => p !== '').join('/'),
    account: { iban: /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact) ? id : null, account_number: id },
    currency: s.currency,
    start_date: opening.date,
    end_date: closing.date,
    opening_balance_minor: opening.minor,
    closing_balance_minor: closing.minor,
    entries: s.transactions.map((t, i) => entry(t, lines[i]!)),
  };
}

/** The line of `text` where the tag content the library quotes starts, or the statement (group) it names. */
function location(text: string, message: string): string {
  const tag = /tag (\w+): (.*)$/.exec(message);
  if (tag?.[1] !== undefined && tag[2] !== undefined) {
    const lines = text.split(/\r?\n/);
    const index = lines.findIndex((l) => l.startsWith(`:${tag[1]}:`) && l.includes(tag[2]!.split('\n')[0]!));
    if (index >= 0) return `line ${index + 1}`;
    return `tag :${tag[1]}:`;
  }
  const group = /in group (\d+)/.exec(message);
  if (group?.[1] !== undefined) return `statement ${group[1]}`;
  return 'line 1';
}

/** Where a balance field's tag is: :60F:/:60M:, :62F:/:62M:, :64:, :65: are one line each. */
const BALANCE_TAG = /^:6[0245][A-Z]?:/;
const FIELD_TAG = /^:(\d{2}|NS)[A-Z]?:/;

/**
 * The file with every line that belongs to no field blanked (docs/guide/statement-import.md
 * "Bank variants"): what a bank writes before the first field (a `:940:` line, routing lines such
 * as `ABNANL2A` / `940` / `0000 01INGBNL2AXXXX00001`, a control byte, blank lines) and the lines
 * after a balance field that start no field (a `-` or `-XXX` trailer, the next statement's header):
 * a balance field is one line, so such a line continues nothing. SWIFT blocks (`{1:…}{4:`, `-}`)
 * stay for the library, which reads them. A blanked line stays as an empty one (which the library
 * skips), so that the line numbers of messages still count the file's lines.
 */
export function mt940FieldLines(text: string): string {
  let continues = false;
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (FIELD_TAG.test(line)) {
        continues = !BALANCE_TAG.test(line);
        return line;
      }
      if (line.startsWith('{') || line.startsWith('-}')) {
        continues = false;
        return line;
      }
      return continues ? line : '';
    })
    .join('\n');
}

/** A reason this project writes for what the library threw: its own words never reach a user. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error && error.constructor === Error ? error.message : '';
  const missing = /^Mandatory tag (\w+) is missing/.exec(message);
  if (missing) return `a statement lacks its mandatory field :${missing[1]}:`;
  const unknown = /^Unknown tag (\w+)/.exec(message);
  if (unknown) return `unknown field :${unknown[1]}:`;
  const unparsed = /^Cannot parse tag (\w+)/.exec(message);
  if (unparsed) return `field :${unparsed[1]}: is not laid out as MT940 defines it`;
  if (/^Currency markers/.test(message)) return "a statement's balances name different currencies";
  if (/^Amount cannot be parsed/.test(message)) return 'an amount is not an MT940 amount (digits with a decimal comma)';
  return 'the file is not laid out as MT940 statements (:20:, :25:, :28C:, :60F:, :61:/:86: lines, :62F:)';
}

export function parseMt940(file: string): ParsedStatementFile {
  const text = mt940FieldLines(file);
  let statements: Mt940Statement[];
  try {
    // With its tags: amounts and dates are read again from their text (exactTag).
    statements = parser.parse(text, true);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StatementParseError('mt940', location(text, message), reasonOf(error));
  }
  if (statements.length === 0)
    throw new StatementParseError('mt940', 'line 1', 'the file holds no statement (no :20: … :62: group)');
  return { format: 'mt940', statements: statements.map((s) => statement(s, text)) };
}
