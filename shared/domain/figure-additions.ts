// What new bank transactions add to the kept figures (docs/reference/book-reads.md
// "Kept figures"): a transaction that no link joins moves only
// sums, counts and latest names, so its figures are added to those kept
// instead of computed again from every record they cover. Each rule is the
// whole computation's (book-figures.ts, book-reads.ts, trial-balance-days.ts)
// on the new transactions alone; the merges give what the whole computation
// gives over the old records and the new together. Pure.
import { nameKey, type LatestName } from './book-reads.js';
import { remainderMinor, type BankTransaction, type IsoDate } from './books.js';
import { accountSums, type AccountSums } from './book-figures.js';
import { bankSide, type PostingAccount } from './ledger-postings.js';
import { dayRows, type DayRow } from './trial-balance-days.js';

/** A transaction an apply inserts: unlinked, as every new transaction is. */
export type AddedTransaction = Pick<
  BankTransaction,
  | 'id'
  | 'bank_account_id'
  | 'booking_date'
  | 'amount_minor'
  | 'currency'
  | 'status'
  | 'counterparty_id'
  | 'counterparty_name'
>;

/** What the new transactions of one counterparty on one account add to its row there. */
export interface RowAddition {
  bank_account_id: string;
  counterparty_id: string;
  transactions: number;
  unlinked_bank_minor: number;
  latest: LatestName;
}

export interface FigureAdditions {
  /** By account: the sums of its new transactions. */
  accounts: Map<string, AccountSums>;
  /** By account then counterparty (rowKey). */
  rows: Map<string, RowAddition>;
  /** By counterparty: its latest name among the new transactions. */
  counterparties: Map<string, LatestName>;
  /** By day: the ledger rows of the new transactions' postings. */
  days: Map<IsoDate, DayRow[]>;
}

export const rowKey = (account: string, cp: string): string => `${account}\u0000${cp}`;

/**
 * What `transactions` add: the accounts' sums, the rows' counts and unlinked
 * remainders, the latest names, and the days' postings (`accounts` holds
 * their bank accounts; a transaction of another account adds to no day).
 */
export function transactionAdditions(
  transactions: readonly AddedTransaction[],
  accounts: readonly PostingAccount[],
): FigureAdditions {
  const byAccount = new Map<string, AddedTransaction[]>();
  const rows = new Map<string, RowAddition>();
  const counterparties = new Map<string, LatestName>();
  for (const t of transactions) {
    const own = byAccount.get(t.bank_account_id);
    if (own) own.push(t);
    else byAccount.set(t.bank_account_id, [t]);
    if (t.counterparty_id === null) continue;
    const latest = { key: nameKey(t), name: t.counterparty_name ?? null };
    counterparties.set(t.counterparty_id, laterName(counterparties.get(t.counterparty_id) ?? null, latest));
    const key = rowKey(t.bank_account_id, t.counterparty_id);
    const row = rows.get(key);
    const unlinked = Math.max(0, remainderMinor(t, []));
    if (row) {
      row.transactions += 1;
      row.unlinked_bank_minor += unlinked;
      row.latest = laterName(row.latest, latest);
    } else
      rows.set(key, {
        bank_account_id: t.bank_account_id,
        counterparty_id: t.counterparty_id,
        transactions: 1,
        unlinked_bank_minor: unlinked,
        latest,
      });
  }
  const sums = new Map([...byAccount].map(([a, own]) => [a, accountSums(a, own)]));
  const days = dayRows(bankSide({ settlementAccounts: [], accounts, entries: [], transactions, links: [] }));
  return { accounts: sums, rows, counterparties, days };
}

/** The later of two names by their keys (latestNames' order); `kept` null: none yet. */
export function laterName(kept: LatestName | null, added: LatestName): LatestName {
  return kept === null || added.key > kept.key ? added : kept;
}

export function addSums(kept: AccountSums, added: AccountSums): AccountSums {
  return {
    bank_account_id: kept.bank_account_id,
    amount_sum_minor: kept.amount_sum_minor + added.amount_sum_minor,
    unreconciled_count: kept.unreconciled_count + added.unreconciled_count,
    unreconciled_sum_minor: kept.unreconciled_sum_minor + added.unreconciled_sum_minor,
  };
}
