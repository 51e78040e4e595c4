// ISO 20022 CAMT.053 (BkToCstmrStmt), versions .001.02 to .001.08, read with
// fast-xml-parser (docs/guide/statement-import.md "Formats"). Namespace prefixes
// are dropped, so every version reads through the same element names; the few
// places where versions differ (Sts as text or as Sts/Cd, a party as Nm or
// Pty/Nm) are read both ways.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decimalToMinor } from './money.js';
import { isStatementDate } from './parsed-checks.js';
import {
  StatementParseError,
  StatementRefusal,
  type EntryDetail,
  type ParsedStatement,
  type ParsedStatementFile,
  type StatementEntry,
} from './model.js';

type Node = Record<string, unknown>;

const ARRAYS = new Set(['Stmt', 'Ntry', 'NtryDtls', 'TxDtls', 'Bal', 'Ustrd', 'Strd']);

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ARRAYS.has(name),
});

/** The namespaces of the versions read (docs/guide/statement-import.md "Formats"). */
const SUPPORTED_VERSION = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.0[2-8]$/;

function fail(location: string, reason: string): never {
  throw new StatementParseError('camt053', location, reason);
}

function child(node: unknown, name: string): unknown {
  return node !== null && typeof node === 'object' ? (node as Node)[name] : undefined;
}

function at(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const name of path) current = child(current, name);
  return current;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (value !== null && typeof value === 'object') {
    const inner = (value as Node)['#text'];
    if (typeof inner === 'string' && inner !== '') return inner;
  }
  return null;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

/** A date or the date part of a date-time; a date that is no calendar day is refused where it stands. */
function isoDay(t: string | null, location: string): string | null {
  if (t === null) return null;
  if (!/^\d{4}-\d{2}-\d{2}/.test(t)) return null;
  if (!isStatementDate(t.slice(0, 10))) fail(location, `not a calendar date: "${t}"`);
  return t.slice(0, 10);
}

function day(value: unknown, location: string): string | null {
  // Dt is a date; DtTm a local date-time whose date part is the booking day.
  const dt = text(child(value, 'Dt'));
  if (dt !== null) return isoDay(dt, `${location}/Dt`);
  return isoDay(text(child(value, 'DtTm')), `${location}/DtTm`);
}

/**
 * ISO 20022 amounts are unsigned decimals with a dot, at most 18 digits: a sign, a comma, an apostrophe or a
 * space is refused rather than read (the direction is CdtDbtInd's alone).
 */
function isoAmount(value: string, currency: string, location: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || value.replace('.', '').length > 18)
    fail(location, `not an ISO 20022 amount (unsigned digits with a dot): "${value}"`);
  return decimalToMinor(value, currency, { format: 'camt053', location });
}

function signedAmount(node: unknown, location: string): { minor: number; currency: string } {
  const amt = child(node, 'Amt');
  const value = text(amt);
  const currency = amt !== null && typeof amt === 'object' ? (amt as Node)['@_Ccy'] : undefined;
  if (value === null || typeof currency !== 'string') fail(`${location}/Amt`, 'missing amount or its Ccy');
  const indicator = text(child(node, 'CdtDbtInd'));
  if (indicator !== 'CRDT' && indicator !== 'DBIT') fail(`${location}/CdtDbtInd`, 'expected CRDT or DBIT');
  const minor = isoAmount(value, currency, `${location}/Amt`);
  return { minor: indicator === 'DBIT' && minor !== 0 ? -minor : minor, currency };
}

/** A party's name in every version: Nm (≤ .001.07) or Pty/Nm (.001.08). */
function partyName(party: unknown): string | null {
  return text(child(party, 'Nm')) ?? text(at(party, 'Pty', 'Nm'));
}

function remittance(tx: unknown): string | null {
  const lines = list(at(tx, 'RmtInf', 'Ustrd'))
    .map(text)
    .filter((l): l is string => l !== null);
  if (lines.length > 0) return lines.join(' ');
  for (const strd of list(at(tx, 'RmtInf', 'Strd'))) {
    const ref = text(at(strd, 'CdtrRefInf', 'Ref'));
    if (ref !== null) return ref;
  }
  return null;
}

/** The other party of a transaction: the debtor of money in, the creditor of money out. */
function counterparty(tx: unknown, incoming: boolean): { name: string | null; iban: string | null } {
  const side = incoming ? 'Dbtr' : 'Cdtr';
  return {
    name: partyName(at(tx, 'RltdPties', side)),
    iban: text(at(tx, 'RltdPties', `${side}Acct`, 'Id', 'IBAN')),
  };
}

function detailAmount(tx: unknown, location: string): number | null {
  const amt = child(tx, 'Amt') ?? at(tx, 'AmtDtls', 'TxAmt', 'Amt');
  const value = text(amt);
  const currency = amt !== null && typeof amt === 'object' ? (amt as Node)['@_Ccy'] : undefined;
  if (value === null || typeof currency !== 'string') return null;
  return isoAmount(value, currency, `${location}/Amt`);
}

function entry(ntry: unknown, location: string): StatementEntry {
  const { minor, currency } = signedAmount(ntry, location);
  const status = text(child(ntry, 'Sts')) ?? text(at(ntry, 'Sts', 'Cd'));
  const booking = day(child(ntry, 'BookgDt'), `${location}/BookgDt`);
  const value = day(child(ntry, 'ValDt'), `${location}/ValDt`);
  const pending = status === 'PDNG';
  if (booking === null && !pending) fail(`${location}/BookgDt`, 'a booked entry needs a booking date');
  const txs = list(child(ntry, 'NtryDtls')).flatMap((d) => list(child(d, 'TxDtls')));
  const incoming = minor >= 0;
  let party: { name: string | null; iban: string | null } = { name: null, iban: null };
  let info = text(child(ntry, 'AddtlNtryInf'));
  const details: EntryDetail[] = [];
  if (txs.length === 1) {
    party = counterparty(txs[0], incoming);
    info = remittance(txs[0]) ?? info;
  } else {
    txs.forEach((tx, i) => {
      const where = `${location}/NtryDtls/TxDtls[${i + 1}]`;
      details.push({
        amount_minor: detailAmount(tx, where),
        counterparty_name: counterparty(tx, incoming).name,
        remittance_info: remittance(tx),
        end_to_end_id: text(at(tx, 'Refs', 'EndToEndId')),
      });
    });
  }
  return {
    booking_date: booking ?? value ?? '',
    value_date: value,
    amount_minor: minor,
    currency,
    bank_reference: text(child(ntry, 'AcctSvcrRef')) ?? text(child(ntry, 'NtryRef')),
    counterparty_name: party.name,
    counterparty_iban: party.iban,
    remittance_info: info,
    details,
    pending,
  };
}

function balance(stmt: unknown, codes: readonly string[], location: string): number | null {
  const bals = list(child(stmt, 'Bal'));
  for (const code of codes) {
    const index = bals.findIndex((b) => text(at(b, 'Tp', 'CdOrPrtry', 'Cd')) === code);
    if (index >= 0) return signedAmount(bals[index], `${location}/Bal[${index + 1}]`).minor;
  }
  return null;
}

function statement(stmt: unknown, location: string): ParsedStatement {
  const acct = child(stmt, 'Acct');
  const iban = text(at(acct, 'Id', 'IBAN'));
  const number = text(at(acct, 'Id', 'Othr', 'Id'));
  if (iban === null && number === null) fail(`${location}/Acct/Id`, 'the statement names no account');
  const firstBalance = list(child(stmt, 'Bal'))[0];
  const currency =
    text(child(acct, 'Ccy')) ??
    (firstBalance === undefined ? null : ((child(child(firstBalance, 'Amt'), '@_Ccy') as string | undefined) ?? null));
  if (currency === null) fail(`${location}/Acct/Ccy`, 'the statement names no currency');
  const entries = list(child(stmt, 'Ntry')).map((n, i) => entry(n, `${location}/Ntry[${i + 1}]`));
  const from = isoDay(text(at(stmt, 'FrToDt', 'FrDtTm')), `${location}/FrToDt/FrDtTm`);
  const to = isoDay(text(at(stmt, 'FrToDt', 'ToDtTm')), `${location}/FrToDt/ToDtTm`);
  const booked = entries
    .filter((e) => !e.pending)
    .map((e) => e.booking_date)
    .sort();
  return {
    reference: text(child(stmt, 'Id')) ?? location,
    account: { iban, account_number: number },
    currency,
    start_date: from ?? booked[0] ?? null,
    end_date: to ?? booked[booked.length - 1] ?? null,
    opening_balance_minor: balance(stmt, ['OPBD', 'PRCD'], location),
    closing_balance_minor: balance(stmt, ['CLBD'], location),
    entries,
  };
}

/**
 * The namespace of the root `Document` element as the file declares it (prefixed or not), or null. Read from
 * the text: the parser drops namespace declarations with the prefixes.
 */
export function documentNamespace(xml: string): string | null {
  const start = /<(?:([A-Za-z_][\w.-]*):)?Document\b([^>]*)>/.exec(xml);
  if (start === null) return null;
  const [, prefix, attributes = ''] = start;
  const name = prefix === undefined ? 'xmlns' : `xmlns:${prefix}`;
  const declared = new RegExp(`(?:^|\\s)${name.replace(/\./g, '\\.')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(
    attributes,
  );
  return declared === null ? null : (declared[1] ?? declared[2] ?? null);
}

export function parseCamt053(xml: string): ParsedStatementFile {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) fail(`line ${valid.err.line}, column ${valid.err.col}`, valid.err.msg);
  const namespace = documentNamespace(xml);
  if (namespace !== null && !SUPPORTED_VERSION.test(namespace)) {
    throw new StatementRefusal('unsupported_statement_version', {
      format: 'camt053',
      version: namespace,
      supported: 'camt.053.001.02 to camt.053.001.08',
    });
  }
  const doc: unknown = parser.parse(xml);
  const root = child(doc, 'Document');
  const body = child(root, 'BkToCstmrStmt');
  if (body === undefined) fail('Document/BkToCstmrStmt', 'not a CAMT.053 statement (no BkToCstmrStmt)');
  const stmts = list(child(body, 'Stmt'));
  if (stmts.length === 0) fail('Document/BkToCstmrStmt/Stmt', 'the file holds no statement');
  return { format: 'camt053', statements: stmts.map((s, i) => statement(s, `Document/BkToCstmrStmt/Stmt[${i + 1}]`)) };
}
