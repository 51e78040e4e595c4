// The computed figures of the book reads (docs/reference/book-reads.md): pure, on the
// records one page loaded. The rules themselves live with their owners — the
// reconciliation remainder in reconcile-checks.ts, the open amount of an
// entry in books.ts (the FIFO repair's settlement-account rule) — and are
// only applied here.
import type { BankLink, BankTransaction, LedgerEntry } from './books.js';
import { openAmountMinor } from './books.js';
import { remainderMinor } from './reconcile-checks.js';

export type LinkState = 'unlinked' | 'partial' | 'full' | 'over';
export const LINK_STATES: readonly LinkState[] = ['unlinked', 'partial', 'full', 'over'];

export interface LinkView { link_id: string; ledger_entry_id: string; amount_minor: number }

const linkView = (l: BankLink): LinkView => ({ link_id: l.id, ledger_entry_id: l.ledger_entry_id, amount_minor: l.amount_minor });
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sum = (links: readonly BankLink[]): number => links.reduce((s, l) => s + l.amount_minor, 0);

/** How far a transaction's links cover it: none, part, exactly, more than |amount|. A zero-amount transaction without links is `full`. */
export function linkState(transaction: Pick<BankTransaction, 'amount_minor'>, links: readonly BankLink[]): LinkState {
  const remainder = remainderMinor(transaction, links);
  if (remainder < 0) return 'over';
  if (remainder === 0) return 'full';
  return sum(links) === 0 ? 'unlinked' : 'partial';
}

export type TransactionView = BankTransaction & { links: LinkView[]; linked_minor: number; remainder_minor: number; link_state: LinkState };

/** A transaction with its links (by link id), Σ links and the reconciliation remainder. */
export function transactionView(transaction: BankTransaction, links: readonly BankLink[]): TransactionView {
  const own = links.filter((l) => l.bank_transaction_id === transaction.id).sort(byId);
  return {
    ...transaction, links: own.map(linkView), linked_minor: sum(own),
    remainder_minor: remainderMinor(transaction, own), link_state: linkState(transaction, own),
  };
}

export type EntryView = LedgerEntry & { links: Array<LinkView & { bank_transaction_id: string }>; linked_minor: number; open_amount_minor: number; open: boolean };

/** An entry with its links, Σ links and its open amount on the settlement accounts; `open` while |open amount| ≠ Σ links. */
export function entryView(entry: LedgerEntry, links: readonly BankLink[], settlementAccounts: readonly string[]): EntryView {
  const own = links.filter((l) => l.ledger_entry_id === entry.id).sort(byId);
  const open = openAmountMinor(entry, settlementAccounts);
  const linked = sum(own);
  return {
    ...entry, links: own.map((l) => ({ ...linkView(l), bank_transaction_id: l.bank_transaction_id })),
    linked_minor: linked, open_amount_minor: open, open: Math.abs(open) !== linked,
  };
}

export interface AccountFigures { book_balance_minor: number; unreconciled: { count: number; sum_minor: number } }

/** Opening balance + Σ every transaction; count and Σ of the unreconciled ones. */
export function accountFigures(openingBalanceMinor: number, transactions: ReadonlyArray<Pick<BankTransaction, 'amount_minor' | 'status'>>): AccountFigures {
  let balance = openingBalanceMinor;
  let count = 0;
  let unreconciled = 0;
  for (const t of transactions) {
    balance += t.amount_minor;
    if (t.status === 'unreconciled') { count += 1; unreconciled += t.amount_minor; }
  }
  return { book_balance_minor: balance, unreconciled: { count, sum_minor: unreconciled } };
}

export interface CounterpartyRow {
  counterparty_id: string;
  name: string | null;
  open_receivable_minor: number;
  open_payable_minor: number;
  unlinked_bank_minor: number;
}

/**
 * One row per counterparty of the account's transactions or of the given
 * entries, by counterparty id: the latest bank name (by booking date, id),
 * what its posted entries leave open beyond their links (receivable: open
 * amount > 0, payable: < 0, both as positive sums), and what its transactions
 * on the account leave unlinked (Σ positive remainders).
 */
export function counterpartyRows(
  transactions: readonly BankTransaction[],
  entries: readonly LedgerEntry[],
  links: readonly BankLink[],
  settlementAccounts: readonly string[],
): CounterpartyRow[] {
  const rows = new Map<string, CounterpartyRow & { seen: string }>();
  const row = (id: string) => {
    let r = rows.get(id);
    if (!r) { r = { counterparty_id: id, name: null, open_receivable_minor: 0, open_payable_minor: 0, unlinked_bank_minor: 0, seen: '' }; rows.set(id, r); }
    return r;
  };
  const byTxn = new Map<string, BankLink[]>();
  const byEntry = new Map<string, BankLink[]>();
  for (const l of links) {
    (byTxn.get(l.bank_transaction_id) ?? byTxn.set(l.bank_transaction_id, []).get(l.bank_transaction_id)!).push(l);
    (byEntry.get(l.ledger_entry_id) ?? byEntry.set(l.ledger_entry_id, []).get(l.ledger_entry_id)!).push(l);
  }
  for (const t of transactions) {
    // A transaction without counterparty (docs/guide/statement-import.md) belongs to no row.
    if (t.counterparty_id === null) continue;
    const r = row(t.counterparty_id);
    const key = `${t.booking_date}\u0000${t.id}`;
    if (key > r.seen) { r.seen = key; r.name = t.counterparty_name; }
    r.unlinked_bank_minor += Math.max(0, remainderMinor(t, byTxn.get(t.id) ?? []));
  }
  for (const e of entries) {
    if (e.status !== 'posted') continue;
    const view = entryView(e, byEntry.get(e.id) ?? [], settlementAccounts);
    const left = Math.max(0, Math.abs(view.open_amount_minor) - view.linked_minor);
    const r = row(e.counterparty_id);
    if (view.open_amount_minor > 0) r.open_receivable_minor += left;
    else if (view.open_amount_minor < 0) r.open_payable_minor += left;
  }
  return [...rows.values()]
    .map(({ seen: _seen, ...r }) => r)
    .sort((a, b) => (a.counterparty_id < b.counterparty_id ? -1 : a.counterparty_id > b.counterparty_id ? 1 : 0));
}
