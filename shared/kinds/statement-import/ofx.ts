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
  // One BANKTRANLIST is the standard; a file with several has each one's entries read in order.
  const lists = list(child(rs, 'BANKTRANLIST'));
  const booked = lists.flatMap((l, k) => {
    const at = lists.length === 1 ? `${location}/BANKTRANLIST` : `${location}/BANKTRANLIST[${k + 1}]`;
    return list(child(l, 'STMTTRN')).map((t, i) => entry(t, currency, false, `${at}/STMTTRN[${i + 1}]`));
  });
  const pendingList = child(rs, 'BANKTRANLISTP');
  const pending = list(child(pendingList, 'STMTTRNP') ?? child(pendingList, 'STMTTRN')).map((t, i) =>
    entry(t, currency, true, `${location}/BANKTRANLISTP/STMTTRNP[${i + 1}]`),
  );
  const starts = lists.map((l) => day(child(l, 'DTSTART'), `${location}/BANKTRANLIST/DTSTART`));
  const ends = lists.map((l) => day(child(l, 'DTEND'), `${location}/BANKTRANLIST/DTEND`));
  const start = starts.includes(null) ? null : ((starts as string[]).sort()[0] ?? null);
  const end = ends.includes(null) ? null : ((ends as string[]).sort().reverse()[0] ?? null);
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

/**
 * OFX aggregates the reader walks through: an aggregate's end tag is mandatory in OFX 1.x, so one of
 * these left open is a broken file, never an empty value.
 */
const AGGREGATES = new Set([
  'OFX',
  'SIGNONMSGSRSV1',
  'SONRS',
  'STATUS',
  'FI',
  'BANKMSGSRSV1',
  'STMTTRNRS',
  'STMTRS',
  'CREDITCARDMSGSRSV1',
  'CCSTMTTRNRS',
  'CCSTMTRS',
  'BANKACCTFROM',
  'BANKACCTTO',
  'CCACCTFROM',
  'CCACCTTO',
  'BANKTRANLIST',
  'BANKTRANLISTP',
  'STMTTRN',
  'STMTTRNP',
  'PAYEE',
  'CURRENCY',
  'ORIGCURRENCY',
  'LEDGERBAL',
  'AVAILBAL',
]);

interface Element {
  name: string;
  children: Element[];
  /** A leaf's value as XML text; null for an aggregate. */
  value: string | null;
}

/** CDATA content as the library's text, which decodes `&lt;`, `&gt;` and `&amp;`; text outside CDATA stays as written. */
const cdataText = (raw: string): string => raw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function serialise(e: Element): string {
  if (e.value !== null) return `<${e.name}>${e.value}</${e.name}>`;
  return `<${e.name}>${e.children.map(serialise).join('')}</${e.name}>`;
}

/** Closes the open element on top of `stack`, which has no end tag of its own (see ofxAsXml). */
function closeUnended(stack: Element[]): void {
  const open = stack.pop()!;
  if (AGGREGATES.has(open.name)) fail(`element ${open.name}`, `element <${open.name}> is not closed`);
  // A start tag without a value and without an end tag is an empty value; what followed it are its siblings.
  const parent = stack[stack.length - 1]!;
  // One at a time: a hostile file's thousands of children spread as arguments would overflow the call stack.
  for (const child of open.children) parent.children.push(child);
  open.children = [];
  open.value = '';
}

/**
 * The OFX body (from `<OFX>`) as XML with every element closed (docs/guide/statement-import.md
 * "Bank variants"). OFX 1.x SGML may leave a value's end tag out (`<NAME>Shop`, or an empty
 * `<MEMO>` with no `</MEMO>`), and OFX 2.x banks may wrap values in CDATA; the library reads neither
 * reliably. A start tag followed by text is a value (its end tag, if next, is consumed); one
 * followed by a tag stays open until its end tag, and if an enclosing end tag comes first it was an
 * empty value — unless it is an aggregate the reader walks through, whose end tag is mandatory.
 */
export function ofxAsXml(content: string): string {
  const body = content.slice(content.indexOf('<OFX>'));
  const pattern = /<!--[\s\S]*?-->|<!\[CDATA\[([\s\S]*?)\]\]>|<(\/?)([A-Za-z0-9_.:-]+)[^>]*>|([^<]+)|</g;
  const tokens: { kind: 'open' | 'close' | 'empty' | 'text'; name: string; text: string }[] = [];
  for (let m = pattern.exec(body); m !== null; m = pattern.exec(body)) {
    const raw = m[1] !== undefined ? cdataText(m[1]) : m[4];
    if (m[3] !== undefined && m[0].endsWith('/>')) tokens.push({ kind: 'empty', name: m[3], text: '' });
    else if (m[3] !== undefined) tokens.push({ kind: m[2] === '/' ? 'close' : 'open', name: m[3], text: '' });
    else if (raw !== undefined && raw.trim() !== '') {
      const last = tokens[tokens.length - 1];
      if (last?.kind === 'text') last.text += raw.trim();
      else tokens.push({ kind: 'text', name: '', text: raw.trim() });
    }
  }
  const root: Element = { name: '', children: [], value: null };
  const stack: Element[] = [root];
  const top = (): Element => stack[stack.length - 1]!;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === 'empty') {
      top().children.push({ name: t.name, children: [], value: '' });
    } else if (t.kind === 'open' && next?.kind === 'text' && !AGGREGATES.has(t.name)) {
      top().children.push({ name: t.name, children: [], value: next.text });
      const after = tokens[i + 2];
      i += after?.kind === 'close' && after.name === t.name ? 2 : 1;
    } else if (t.kind === 'open') {
      const element: Element = { name: t.name, children: [], value: null };
      top().children.push(element);
      stack.push(element);
      // Text inside an aggregate the reader walks through is no value of it.
      if (next?.kind === 'text') i += 1;
    } else if (t.kind === 'close' && stack.some((e) => e.name === t.name)) {
      while (top().name !== t.name) closeUnended(stack);
      const closed = stack.pop()!;
      if (closed.children.length === 0 && !AGGREGATES.has(closed.name)) closed.value = '';
    }
    // A stray end tag (of a value already closed) or text between aggregates is no part of the tree.
  }
  while (stack.length > 1) closeUnended(stack);
  return root.children.map(serialise).join('');
}

export function parseOfx(content: string): ParsedStatementFile {
  if (!content.includes('<OFX>')) fail('line 1', 'no <OFX> element');
  let doc: { OFX: Record<string, unknown> };
  try {
    doc = parseSync(ofxAsXml(content));
  } catch (error) {
    if (error instanceof StatementParseError) throw error;
    // Nesting past the stack is the file's depth, not a tag to name (parse.ts answers it).
    if (error instanceof RangeError) throw error;
    // The library's own words never reach a user.
    fail('OFX', 'the file is not laid out as OFX (an <OFX> element holding closed aggregates)');
  }
  const statements: ParsedStatement[] = [];
  const groups: [string, string, string][] = [
    ['BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS'],
    ['CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS'],
  ];
  for (const [msgs, trnrs, rs] of groups) {
    list(child(child(doc.OFX, msgs), trnrs)).forEach((t, i) => {
      const location = `OFX/${msgs}/${trnrs}[${i + 1}]/${rs}`;
      const responses = list(child(t, rs));
      if (responses.length === 0) fail(location, `missing ${rs}`);
      // One STMTRS per STMTTRNRS is the standard, but some banks put each account's in one: every one is read.
      responses.forEach((r, j) => {
        const one = responses.length === 1;
        statements.push(statement(r, one ? text(child(t, 'TRNUID')) : null, one ? location : `${location}[${j + 1}]`));
      });
    });
  }
  if (statements.length === 0) fail('OFX', 'the file holds no bank or credit-card statement');
  return { format: 'ofx', statements };
}
