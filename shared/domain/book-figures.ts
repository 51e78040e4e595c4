// The figures the worker keeps as the books change (docs/reference/book-reads.md
// "Kept figures"): per counterparty, what its posted entries leave open and its
// latest bank name in the organisation; per account and counterparty, what its
// transactions on the account leave unlinked and its latest name there; per
// account, Σ amounts and the unreconciled count and sum. Each is computed by the
// same rules as the whole reads (book-reads.ts), on one counterparty's or one
// account's records, so the list built from them is the list computed whole.
import {
  counterpartyRows,
  latestNamed,
  type CounterpartyEntry,
  type CounterpartyLink,
  type CounterpartyRow,
  type CounterpartyTransaction,
} from './book-reads.js';
import type { BankTransaction } from './books.js';
import type { AccountFigures } from './book-reads.js';

/** A counterparty's figures in the organisation: `open` when one of its posted entries is open (it then has a row on every account). */
export interface CounterpartyFigures {
  counterparty_id: string;
  open: boolean;
  open_receivable_minor: number;
  open_payable_minor: number;
  /** Its latest bank name on any account; null without one. */
  name: string | null;
  /** What placed that name last (book-reads.ts `nameKey`); null without one. */
  name_key: string | null;
}

/** A counterparty's figures on one account: `transactions` > 0 gives it a row there. */
export interface AccountCounterpartyFigures {
  bank_account_id: string;
  counterparty_id: string;
  transactions: number;
  unlinked_bank_minor: number;
  name: string | null;
  /** What placed that name last (book-reads.ts `nameKey`); null without one. */
  name_key: string | null;
}

/** An account's figures without its opening balance (the account's own field, read with it). */
export interface AccountSums {
  bank_account_id: string;
  amount_sum_minor: number;
  unreconciled_count: number;
  unreconciled_sum_minor: number;
}

/**
 * The figures of the counterparties `ids`: `transactions` are every
 * transaction of the organisation naming one of them (with bank_account_id),
 * `entries` their posted entries, `links` every link of those transactions and
 * entries.
 */
export function counterpartyFigures(
  ids: readonly string[],
  transactions: ReadonlyArray<CounterpartyTransaction & Pick<BankTransaction, 'bank_account_id'>>,
  entries: readonly CounterpartyEntry[],
  links: readonly CounterpartyLink[],
  settlementAccounts: readonly string[],
): { counterparties: CounterpartyFigures[]; accounts: AccountCounterpartyFigures[] } {
  const open = new Map(counterpartyRows([], entries, links, settlementAccounts).map((r) => [r.counterparty_id, r]));
  const names = latestNamed(transactions);
  const counterparties = [...new Set(ids)].map((id): CounterpartyFigures => {
    const row = open.get(id);
    return {
      counterparty_id: id,
      open: row !== undefined,
      open_receivable_minor: row?.open_receivable_minor ?? 0,
      open_payable_minor: row?.open_payable_minor ?? 0,
      name: names.get(id)?.name ?? null,
      name_key: names.get(id)?.key ?? null,
    };
  });
  const byAccount = new Map<string, Array<(typeof transactions)[number]>>();
  for (const t of transactions) {
    if (t.counterparty_id === null) continue;
    const own = byAccount.get(t.bank_account_id);
    if (own) own.push(t);
    else byAccount.set(t.bank_account_id, [t]);
  }
  const accounts: AccountCounterpartyFigures[] = [];
  for (const [account, own] of byAccount) {
    const counts = new Map<string, number>();
    for (const t of own) counts.set(t.counterparty_id!, (counts.get(t.counterparty_id!) ?? 0) + 1);
    const named = latestNamed(own);
    for (const r of counterpartyRows(own, [], links, settlementAccounts))
      accounts.push({
        bank_account_id: account,
        counterparty_id: r.counterparty_id,
        transactions: counts.get(r.counterparty_id) ?? 0,
        unlinked_bank_minor: r.unlinked_bank_minor,
        name: r.name,
        name_key: named.get(r.counterparty_id)?.key ?? null,
      });
  }
  return { counterparties, accounts };
}

/** Σ amounts, and the count and Σ of the unreconciled ones, of one account's transactions. */
export function accountSums(
  bankAccountId: string,
  transactions: ReadonlyArray<Pick<BankTransaction, 'amount_minor' | 'status'>>,
): AccountSums {
  let sum = 0;
  let count = 0;
  let unreconciled = 0;
  for (const t of transactions) {
    sum += t.amount_minor;
    if (t.status === 'unreconciled') {
      count += 1;
      unreconciled += t.amount_minor;
    }
  }
  return {
    bank_account_id: bankAccountId,
    amount_sum_minor: sum,
    unreconciled_count: count,
    unreconciled_sum_minor: unreconciled,
  };
}

/** An account's figures (book-reads.ts `accountFigures`) from its opening balance and its kept sums. */
export function figuresFromSums(openingBalanceMinor: number, sums: AccountSums): AccountFigures {
  return {
    book_balance_minor: openingBalanceMinor + sums.amount_sum_minor,
    unreconciled: { count: sums.unreconciled_count, sum_minor: sums.unreconciled_sum_minor },
  };
}

/**
 * One page of an account's counterparty list, by counterparty id, from the
 * kept figures: `onAccount` the account's rows with transactions, `open` the
 * organisation's counterparties with an open entry, both by id and after the
 * same position. A counterparty with both is one row; one without a
 * transaction on the account carries its name in the organisation.
 */
export function counterpartyPage(
  onAccount: readonly AccountCounterpartyFigures[],
  open: readonly CounterpartyFigures[],
  openOf: ReadonlyMap<string, CounterpartyFigures>,
  limit: number,
): CounterpartyRow[] {
  const rows = new Map<string, CounterpartyRow>();
  for (const a of onAccount) {
    const o = openOf.get(a.counterparty_id);
    rows.set(a.counterparty_id, {
      counterparty_id: a.counterparty_id,
      name: a.name,
      open_receivable_minor: o?.open ? o.open_receivable_minor : 0,
      open_payable_minor: o?.open ? o.open_payable_minor : 0,
      unlinked_bank_minor: a.unlinked_bank_minor,
    });
  }
  for (const o of open) {
    if (rows.has(o.counterparty_id)) continue;
    rows.set(o.counterparty_id, {
      counterparty_id: o.counterparty_id,
      name: o.name,
      open_receivable_minor: o.open_receivable_minor,
      open_payable_minor: o.open_payable_minor,
      unlinked_bank_minor: 0,
    });
  }
  return [...rows.values()]
    .sort((a, b) => (a.counterparty_id < b.counterparty_id ? -1 : a.counterparty_id > b.counterparty_id ? 1 : 0))
    .slice(0, limit);
}
