// The book reads (docs/reference/book-reads.md) as readable tables: amounts with their
// currency, dates, names. Chosen by the envelope's operation.
import { formatMoney } from './money.js';
import type { Style } from './style.js';
import { table } from './table.js';

type Row = Record<string, unknown>;
const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
const money = (v: unknown, currency: unknown, signed = false): string =>
  typeof v === 'number' ? formatMoney(v, typeof currency === 'string' ? currency : null, { signed }) : '';
const itemsOf = (data: unknown): Row[] =>
  data && typeof data === 'object' && Array.isArray((data as Row).items) ? (data as { items: Row[] }).items : [];

function accounts(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['ACCOUNT', 'NAME', 'BOOK BALANCE', 'UNRECONCILED', 'RECONCILED THROUGH'],
      rows.map((a) => {
        const u = (a.unreconciled ?? {}) as Row;
        const through = a.reconciled_through as Row | null;
        return [
          str(a.id),
          str(a.name),
          money(a.book_balance_minor, a.currency),
          `${str(u.count)} (${money(u.sum_minor, a.currency, true)})`,
          through ? `${str(through.date)} ${money(through.balance_minor, a.currency)}` : '-',
        ];
      }),
    ) || 'No bank accounts.\n'
  );
}

function transactions(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['DATE', 'TRANSACTION', 'AMOUNT', 'COUNTERPARTY', 'STATUS', 'LINKS', 'REMAINDER'],
      rows.map((t) => [
        str(t.booking_date),
        str(t.id),
        money(t.amount_minor, t.currency, true),
        str(t.counterparty_name),
        str(t.status),
        str(t.link_state),
        money(t.remainder_minor, t.currency),
      ]),
    ) || 'No bank transactions.\n'
  );
}

function entries(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['DATE', 'ENTRY', 'REFERENCE', 'COUNTERPARTY', 'STATUS', 'OPEN', 'LINKED'],
      rows.map((e) => [
        str(e.entry_date),
        str(e.id),
        str(e.reference),
        str(e.counterparty_id),
        str(e.status),
        money(e.open_amount_minor, e.currency, true),
        money(e.linked_minor, e.currency),
      ]),
    ) || 'No ledger entries.\n'
  );
}

function counterparties(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['COUNTERPARTY', 'NAME', 'OPEN RECEIVABLE', 'OPEN PAYABLE', 'UNLINKED BANK'],
      rows.map((c) => [
        str(c.counterparty_id),
        str(c.name),
        money(c.open_receivable_minor, c.currency),
        money(c.open_payable_minor, c.currency),
        money(c.unlinked_bank_minor, c.currency),
      ]),
    ) || 'No counterparties.\n'
  );
}

/** A total may be a decimal string beyond 2^53 − 1 (docs/reference/http-api.md §7): shown whole, in minor units. */
const total = (v: unknown, currency: unknown): string =>
  typeof v === 'string' ? `${v} ${str(currency)} minor units` : money(v, currency);

function trialBalance(style: Style, one: Row): string {
  const rows = itemsOf(one);
  return (
    `Trial balance as of ${str(one.as_of)}\n` +
    (table(
      style,
      ['ACCOUNT', 'NAME', 'DEBIT', 'CREDIT', 'BALANCE'],
      rows.map((r) => [
        str(r.account),
        str(r.name),
        total(r.debit_minor, r.currency),
        total(r.credit_minor, r.currency),
        total(r.balance_minor, r.currency),
      ]),
    ) || 'No postings.\n')
  );
}

function documents(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['RECEIVED', 'DOCUMENT', 'STATUS', 'VENDOR', 'INVOICE', 'TOTAL'],
      rows.map((d) => {
        const x = (d.extracted ?? {}) as Row;
        return [
          str(d.received_at),
          str(d.id),
          str(d.status),
          str(x.vendor_name),
          str(x.invoice_number),
          money(x.total_minor, x.currency),
        ];
      }),
    ) || 'No inbox documents.\n'
  );
}

function ledgerAccounts(style: Style, rows: Row[]): string {
  return (
    table(
      style,
      ['CODE', 'NAME', 'TYPE', 'ACTIVE'],
      rows.map((a) => [str(a.code), str(a.name), str(a.type), a.active === false ? 'no' : 'yes']),
    ) || 'No chart of accounts: entries may use any code.\n'
  );
}

function links(style: Style, row: Row, currency: unknown): string {
  const list = Array.isArray(row.links) ? (row.links as Row[]) : [];
  if (list.length === 0) return '  no links\n';
  return table(
    style,
    ['LINK', 'ENTRY', 'TRANSACTION', 'AMOUNT'],
    list.map((l) => [
      str(l.link_id),
      str(l.ledger_entry_id),
      str(l.bank_transaction_id ?? row.id),
      money(l.amount_minor, currency),
    ]),
  );
}

/** The summary of a book read, or null when the operation is not one. */
/** A transaction's match suggestions, best first: what each settles and why it ranks where it does. */
function suggestions(style: Style, data: Row): string {
  const t = (data.transaction ?? {}) as Row;
  const rows = Array.isArray(data.suggestions) ? (data.suggestions as Row[]) : [];
  let out = transactions(style, [t]);
  out += `Left unlinked: ${money(data.remaining_minor, t.currency)}; declined so far: ${str(data.declined)}\n`;
  if (rows.length === 0) return `${out}No suggestions.\n`;
  const ids = (v: unknown): string =>
    Array.isArray(v)
      ? (v as Row[]).map((x) => `${str(x.id)} (${money(x.open_minor ?? x.total_minor, t.currency)})`).join(' + ')
      : '';
  return (
    out +
    table(
      style,
      ['#', 'ENTRIES / DOCUMENT', 'FIT', 'SCORE', 'REFERENCE', 'COUNTERPARTY', 'DAYS'],
      rows.map((r, i) => {
        const signals = (r.signals ?? {}) as Row;
        return [
          String(i + 1),
          [ids(r.entries), ids(r.documents)].filter(Boolean).join(' + '),
          str(r.amount_fit),
          str(r.score),
          str(signals.reference) || '-',
          str(signals.counterparty) || '-',
          str(signals.date_days),
        ];
      }),
    )
  );
}

export function renderBookRead(style: Style, operation: string | null, data: unknown): string | null {
  const one = (data ?? {}) as Row;
  switch (operation) {
    case 'bank_accounts.list':
      return accounts(style, itemsOf(data));
    case 'bank_accounts.show':
      return accounts(style, [one]) + (one.iban ? `  IBAN ${str(one.iban)}\n` : '');
    case 'bank_transactions.list':
      return transactions(style, itemsOf(data));
    case 'bank_transactions.show':
      return transactions(style, [one]) + links(style, one, one.currency);
    case 'ledger_entries.list':
      return entries(style, itemsOf(data));
    case 'ledger_accounts.list':
      return ledgerAccounts(style, itemsOf(data));
    case 'ledger_entries.show':
      return (
        entries(style, [one]) +
        (one.reversal_of ? `  reverses ${str(one.reversal_of)}\n` : '') +
        (one.reversed_by ? `  reversed by ${str(one.reversed_by)}\n` : '') +
        links(style, one, one.currency)
      );
    case 'counterparties.list':
      return counterparties(style, itemsOf(data));
    case 'ledger.trial_balance':
      return trialBalance(style, one);
    case 'match_suggestions.list':
      return suggestions(style, one);
    case 'match_suggestions.decline':
      return `Declined for ${str(one.bank_transaction_id)}: ${str(one.declined)} in all; never suggested for it again.\n`;
    case 'inbox_documents.list':
      return documents(style, itemsOf(data));
    case 'inbox_documents.show':
      return (
        documents(style, [one]) +
        `  file ${str((one.file as Row | undefined)?.name)} (${str((one.file as Row | undefined)?.sha256).slice(0, 12)}…)\n` +
        (one.booked_entry_id ? `  booked by ${str(one.booked_entry_id)}\n` : '')
      );
    case 'bank_accounts.csv_mapping.show':
    case 'bank_accounts.csv_mapping.put':
      return csvMapping(style, one);
    case null:
    default:
      return null;
  }
}

/** A bank account's saved CSV mapping (docs/guide/statement-import.md "Saved CSV mapping"), one field per line, as the import's flags. */
function csvMapping(style: Style, one: Row): string {
  const mapping = one.csv_mapping as Row | null;
  if (!mapping)
    return `No CSV mapping saved for bank account ${style.bold(str(one.bank_account_id))}: a CSV import needs its mapping flags.\n`;
  let out = `CSV mapping of bank account ${style.bold(str(one.bank_account_id))}, saved ${str(one.updated_at)} by ${str(one.updated_by)}:\n`;
  for (const [key, value] of Object.entries(mapping)) out += `  --${key.replace(/_/g, '-')} ${JSON.stringify(value)}\n`;
  return out;
}
