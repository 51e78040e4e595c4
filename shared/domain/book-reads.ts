// The computed figures of the book reads (docs/reference/book-reads.md): pure, on the
// records one page loaded. The rules themselves live in books.ts — a
// transaction's remainder (what reconciliation clears), the open amount of an
// entry (the FIFO repair's settlement-account rule) — and are only applied
// here.
import type { BankLink, BankTransaction, LedgerEntry } from './books.js';
import { isSettleable, openAmountMinor, remainderMinor } from './books.js';

export type LinkState = 'unlinked' | 'partial' | 'full' | 'over';
export const LINK_STATES: readonly LinkState[] = ['unlinked', 'partial', 'full', 'over'];

export interface LinkView {
  link_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

const linkView = (l: BankLink): LinkView => ({
  link_id: l.id,
  ledger_entry_id: l.ledger_entry_id,
  amount_minor: l.amount_minor,
});
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sum = (links: readonly BankLink[]): number => links.reduce((s, l) => s + l.amount_minor, 0);

/** How far a transaction's links cover it: none, part, exactly, more than |amount|. A zero-amount transaction without links is `full`. */
export function linkState(transaction: Pick<BankTransaction, 'amount_minor'>, links: readonly BankLink[]): LinkState {
  const remainder = remainderMinor(transaction, links);
  if (remainder < 0) return 'over';
  if (remainder === 0) return 'full';
  return sum(links) === 0 ? 'unlinked' : 'partial';
}

export type TransactionView = BankTransaction & {
  links: LinkView[];
  linked_minor: number;
  remainder_minor: number;
  link_state: LinkState;
};

/** A transaction with its links (by link id), Σ links and the reconciliation remainder. */
export function transactionView(transaction: BankTransaction, links: readonly BankLink[]): TransactionView {
  const own = links.filter((l) => l.bank_transaction_id === transaction.id).sort(byId);
  // An imported record's provenance is the export's (docs/guide/ledger-exchange.md "Who wrote it"), not the read's.
  const { provenance, ...fields } = transaction;
  return {
    ...fields,
    links: own.map(linkView),
    linked_minor: sum(own),
    remainder_minor: remainderMinor(transaction, own),
    link_state: linkState(transaction, own),
  };
}

export type EntryView = LedgerEntry & {
  links: Array<LinkView & { bank_transaction_id: string }>;
  linked_minor: number;
  open_amount_minor: number;
  open: boolean;
};

/** An entry with its links, Σ links and its open amount on the settlement accounts; `open` by `isOpen`. */
export function entryView(
  entry: LedgerEntry,
  links: readonly BankLink[],
  settlementAccounts: readonly string[],
): EntryView {
  const own = links.filter((l) => l.ledger_entry_id === entry.id).sort(byId);
  const open = openAmountMinor(entry, settlementAccounts);
  const linked = sum(own);
  const { provenance, ...fields } = entry;
  return {
    ...fields,
    links: own.map((l) => ({ ...linkView(l), bank_transaction_id: l.bank_transaction_id })),
    linked_minor: linked,
    open_amount_minor: open,
    open: isOpen(entry, open, linked),
  };
}

export interface AccountFigures {
  book_balance_minor: number;
  unreconciled: { count: number; sum_minor: number };
}

/** Opening balance + Σ every transaction; count and Σ of the unreconciled ones. */
export function accountFigures(
  openingBalanceMinor: number,
  transactions: ReadonlyArray<Pick<BankTransaction, 'amount_minor' | 'status'>>,
): AccountFigures {
  let balance = openingBalanceMinor;
  let count = 0;
  let unreconciled = 0;
  for (const t of transactions) {
    balance += t.amount_minor;
    if (t.status === 'unreconciled') {
      count += 1;
      unreconciled += t.amount_minor;
    }
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

/** What the counterparty figures read of a transaction, an entry, a link (a projected read: docs/reference/book-reads.md "Cost"). */
export type CounterpartyTransaction = Pick<
  BankTransaction,
  'id' | 'booking_date' | 'amount_minor' | 'counterparty_id' | 'counterparty_name'
>;
export type CounterpartyEntry = Pick<LedgerEntry, 'id' | 'counterparty_id' | 'currency' | 'lines' | 'status'> &
  Partial<Pick<LedgerEntry, 'reversal_of'>>;
export type CounterpartyLink = Pick<BankLink, 'bank_transaction_id' | 'ledger_entry_id' | 'amount_minor'>;
/** A transaction that names a counterparty: the latest by (booking date, id) gives its name. */
export type NamingTransaction = Pick<BankTransaction, 'id' | 'booking_date' | 'counterparty_id' | 'counterparty_name'>;

/**
 * Whether an entry is open (the entries list's `open`, the counterparty
 * list's rule): posted, reversing no other entry (books.ts `isSettleable`),
 * and its open amount's size is not what its links cover. A reversed entry and its reversal settle each other: neither is
 * left to match with the bank.
 */
export function isOpen(
  entry: Pick<LedgerEntry, 'status'> & Partial<Pick<LedgerEntry, 'reversal_of'>>,
  openAmount: number,
  linkedMinor: number,
): boolean {
  return isSettleable(entry) && Math.abs(openAmount) !== linkedMinor;
}

/**
 * A counterparty's latest name and what placed it last: `${booking_date} ${id}`
 * of the transaction that gave it (dates have one length, so the key orders
 * by date, then id; a space, as PostgreSQL's jsonb holds no NUL).
 */
export interface LatestName {
  key: string;
  name: string | null;
}

/** The key latestNames orders a transaction's name by. */
export const nameKey = (t: Pick<NamingTransaction, 'id' | 'booking_date'>): string => `${t.booking_date} ${t.id}`;

/** Each counterparty's latest name among `transactions`, with its key (latestNames). */
export function latestNamed(transactions: readonly NamingTransaction[]): Map<string, LatestName> {
  const latest = new Map<string, LatestName>();
  for (const t of transactions) {
    if (t.counterparty_id === null) continue;
    const key = nameKey(t);
    const seen = latest.get(t.counterparty_id);
    // A stored transaction without a name (absent, null) names nobody: null, as the answer's schema says.
    if (!seen || key > seen.key) latest.set(t.counterparty_id, { key, name: t.counterparty_name ?? null });
  }
  return latest;
}

/** Each counterparty's latest name among `transactions`, by (booking date, id); ids are ASCII (shared/schemas/common.ts), so code-unit order is byte order. */
export function latestNames(transactions: readonly NamingTransaction[]): Map<string, string | null> {
  return new Map([...latestNamed(transactions)].map(([id, { name }]) => [id, name]));
}

/**
 * The counterparty list of one account (docs/reference/book-reads.md
 * "Computed figures"), by counterparty id: one row per counterparty of the
 * account's `transactions` and per counterparty of an open posted entry in
 * the account's `currency` among `entries` (the organisation's posted
 * entries; a reversing entry is never open, books.ts `isReversalEntry`).
 * `name`: the latest bank name on the account; null for a counterparty
 * without a transaction on the account (nameOffAccount gives it its name from
 * the organisation's other accounts).
 * `open_receivable_minor` / `open_payable_minor`: what its posted entries in
 * `currency` leave open beyond their links (open amount > 0 / < 0, both as
 * positive sums); why only those: an amount in another currency cannot be
 * added to the account's, nor settled from it (the repair and the bank match
 * refuse it). `unlinked_bank_minor`: Σ of the positive remainders of its
 * transactions on the account (0 without any). `links`: every link of the
 * organisation to those entries and from those transactions.
 */
export function counterpartyRows(
  transactions: readonly CounterpartyTransaction[],
  entries: readonly CounterpartyEntry[],
  links: readonly CounterpartyLink[],
  settlementAccounts: readonly string[],
  currency: string,
): CounterpartyRow[] {
  const rows = new Map<string, CounterpartyRow>();
  const row = (id: string): CounterpartyRow => {
    let r = rows.get(id);
    if (!r) {
      r = { counterparty_id: id, name: null, open_receivable_minor: 0, open_payable_minor: 0, unlinked_bank_minor: 0 };
      rows.set(id, r);
    }
    return r;
  };
  const byTxn = new Map<string, CounterpartyLink[]>();
  const linkedOf = new Map<string, number>();
  for (const l of links) {
    const own = byTxn.get(l.bank_transaction_id);
    if (own) own.push(l);
    else byTxn.set(l.bank_transaction_id, [l]);
    linkedOf.set(l.ledger_entry_id, (linkedOf.get(l.ledger_entry_id) ?? 0) + l.amount_minor);
  }
  // A transaction without counterparty (docs/guide/statement-import.md) belongs to no row.
  const named = latestNames(transactions);
  for (const t of transactions) {
    if (t.counterparty_id === null) continue;
    const r = row(t.counterparty_id);
    r.name = named.get(t.counterparty_id) ?? null;
    r.unlinked_bank_minor += Math.max(0, remainderMinor(t, byTxn.get(t.id) ?? []));
  }
  for (const e of entries) {
    if (e.currency !== currency) continue;
    const open = openAmountMinor(e, settlementAccounts);
    const linked = linkedOf.get(e.id) ?? 0;
    // A settled, reversed or reversing entry adds nothing, and names no counterparty the account does not.
    if (!isOpen(e, open, linked)) continue;
    const left = Math.max(0, Math.abs(open) - linked);
    const r = row(e.counterparty_id);
    if (open > 0) r.open_receivable_minor += left;
    else if (open < 0) r.open_payable_minor += left;
  }
  return [...rows.values()].sort((a, b) =>
    a.counterparty_id < b.counterparty_id ? -1 : a.counterparty_id > b.counterparty_id ? 1 : 0,
  );
}

/** The counterparties of `rows` without a transaction among the account's `transactions`, by id: their names come from elsewhere. */
export function offAccountCounterparties(
  rows: readonly CounterpartyRow[],
  transactions: readonly Pick<BankTransaction, 'counterparty_id'>[],
): string[] {
  const onAccount = new Set(transactions.map((t) => t.counterparty_id));
  return rows.filter((r) => !onAccount.has(r.counterparty_id)).map((r) => r.counterparty_id);
}

/**
 * `rows` with the counterparties of `offAccount` named by the latest of
 * `elsewhere` (transactions on any account of the organisation) that names
 * them, by (booking date, id); null when none does. Other rows unchanged.
 */
export function nameOffAccount(
  rows: readonly CounterpartyRow[],
  offAccount: readonly string[],
  elsewhere: readonly NamingTransaction[],
): CounterpartyRow[] {
  const off = new Set(offAccount);
  const names = latestNames(elsewhere);
  return rows.map((r) => (off.has(r.counterparty_id) ? { ...r, name: names.get(r.counterparty_id) ?? null } : r));
}
