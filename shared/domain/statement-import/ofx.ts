// OFX 1.x (SGML) and 2.x (XML) bank and credit-card statements, read with
// ofx-js (docs/guide/statement-import.md "Formats"). Every value stays text, so amounts
// are converted exactly.
import { parseSync } from 'ofx-js';
import { decimalToMinor } from './money.js';
import { isStatementDate } from './parsed-checks.js';
import { StatementParseError, type ParsedStatement, type ParsedStatementFile, type StatementEntry } from './model.js';

type Node = Record<string, unknown>;

function fail(location: string, reason: string): never {
  throw new StatementParseError('ofx', location, reason);
}

function child(node: unknown, name: string): unknown {
  return node !== null && typeof node === 'object' ? (node as Node)[name] : undefined;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === '' ? [] : [value];
}

/** OFX dates are `YYYYMMDD[HHMMSS[.XXX]][[±hh:TZ]]`; the booking day is the date part. */
function day(value: unknown, location: string): string | null {
  const t = text(value);
  if (t === null) return null;
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(t);
  if (!m) fail(location, `not an OFX date: "${t}"`);
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  if (!isStatementDate(iso)) fail(location, `not a calendar date: "${t}"`);
  return iso;
}

/** OFX amounts use `.`, but some banks write `,`. */
function amount(value: unknown, currency: string, location: string): number {
  const t = text(value);
  if (t === null) fail(location, 'missing amount');
  return decimalToMinor(t, currency, { format: 'ofx', location }, t.includes(',') && !t.includes('.') ? ',' : '.');
}

function entry(trn: unknown, currency: string, pending: boolean, location: string): StatementEntry {
  const own = text(child(child(trn, 'CURRENCY'), 'CURSYM')) ?? currency;
  const booking =
    day(child(trn, 'DTPOSTED'), `${location}/DTPOSTED`) ?? day(child(trn, 'DTTRAN'), `${location}/DTTRAN`);
  if (booking === null) fail(`${location}/DTPOSTED`, 'missing posting date');
  const name = text(child(trn, 'NAME')) ?? text(child(child(trn, 'PAYEE'), 'NAME'));
  const memo = text(child(trn, 'MEMO'));
  return {
    booking_date: booking,
    value_date: day(child(trn, 'DTAVAIL'), `${location}/DTAVAIL`),
    amount_minor: amount(child(trn, 'TRNAMT'), own, `${location}/TRNAMT`),
    currency: own,
    bank_reference: text(child(trn, 'FITID')),
    counterparty_name: name,
    counterparty_iban: text(child(child(trn, 'BANKACCTTO'), 'ACCTID')),
    remittance_info: memo,
    details: [],
    pending,
  };
}

function statement(rs: unknown, trnuid: string | null, location: string): ParsedStatement {
  const currency = text(child(rs, 'CURDEF'));
  if (currency === null) fail(`${location}/CURDEF`, 'the statement names no currency');
  const from = child(rs, 'BANKACCTFROM') ?? child(rs, 'CCACCTFROM');
  const number = text(child(from, 'ACCTID'));
  if (number === null) fail(`${location}/BANKACCTFROM/ACCTID`, 'the statement names no account');
  const list_ = child(rs, 'BANKTRANLIST');
  const booked = list(child(list_, 'STMTTRN')).map((t, i) =>
    entry(t, currency, false, `${location}/BANKTRANLIST/STMTTRN[${i + 1}]`),
  );
  const pendingList = child(rs, 'BANKTRANLISTP');
  const pending = list(child(pendingList, 'STMTTRNP') ?? child(pendingList, 'STMTTRN')).map((t, i) =>
    entry(t, currency, true, `${location}/BANKTRANLISTP/STMTTRNP[${i + 1}]`),
  );
  const start = day(child(list_, 'DTSTART'), `${location}/BANKTRANLIST/DTSTART`);
  const end = day(child(list_, 'DTEND'), `${location}/BANKTRANLIST/DTEND`);
  const ledger = child(child(rs, 'LEDGERBAL'), 'BALAMT');
  return {
    reference: trnuid !== null && trnuid !== '0' ? trnuid : `${number}:${start ?? ''}..${end ?? ''}`,
    // An ACCTID may be an IBAN (European banks) or a domestic number: both are compared.
    account: {
      iban: /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(number.replace(/\s/g, '').toUpperCase()) ? number : null,
      account_number: number,
    },
    currency,
    start_date: start,
    end_date: end,
    // OFX gives the ledger balance at DTASOF (the closing balance), never an opening one.
    opening_balance_minor: null,
    closing_balance_minor: ledger === undefined ? null : amount(ledger, currency, `${location}/LEDGERBAL/BALAMT`),
    entries: [...booked, ...pending],
  };
}

export function parseOfx(content: string): ParsedStatementFile {
  if (!content.includes('<OFX>')) fail('line 1', 'no <OFX> element');
  let doc: { OFX: Record<string, unknown> };
  try {
    doc = parseSync(content);
  } catch (error) {
    // Nesting past the stack is the file's depth, not a tag to name (parse.ts answers it).
    if (error instanceof RangeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const element = /for (\S+)/.exec(message)?.[1];
    fail(element === undefined ? 'OFX' : `element ${element}`, message);
  }
  const statements: ParsedStatement[] = [];
  const groups: [string, string, string][] = [
    ['BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS'],
    ['CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS'],
  ];
  for (const [msgs, trnrs, rs] of groups) {
    list(child(child(doc.OFX, msgs), trnrs)).forEach((t, i) => {
      const location = `OFX/${msgs}/${trnrs}[${i + 1}]/${rs}`;
      if (child(t, rs) === undefined) fail(location, `missing ${rs}`);
      statements.push(statement(child(t, rs), text(child(t, 'TRNUID')), location));
    });
  }
  if (statements.length === 0) fail('OFX', 'the file holds no bank or credit-card statement');
  return { format: 'ofx', statements };
}
