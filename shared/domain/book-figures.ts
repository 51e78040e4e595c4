// The figures the worker keeps as the books change (docs/reference/book-reads.md
// "Kept figures"): per counterparty, its latest bank name in the organisation
// and, per currency, what its posted entries in it leave open; per account and
// counterparty, what its transactions on the account leave unlinked and its
// latest name there; per account, Σ amounts and the unreconciled count and
// sum. Each is computed by the same rules as the whole reads (book-reads.ts),
// on one counterparty's or one account's records, so the list built from them
// is the list computed whole.
import {
  counterpartyRows,
  latestNamed,
  type CounterpartyEntry,
  type CounterpartyLink,
  type CounterpartyRow,
  type CounterpartyTransaction,
} from './book-reads.js';
import { compareIds, remainderMinor, type BankTransaction } from './books.js';
import type { AccountFigures } from './book-reads.js';

/** A counterparty's figures in the organisation. */
export interface CounterpartyFigures {
  counterparty_id: string;
  /** Its latest bank name on any account; null without one. */
  name: string | null;
  /** What placed that name last (book-reads.ts `nameKey`); null without one. */
  name_key: string | null;
}

/**
 * What a counterparty's posted entries in one currency leave open: one for
 * each currency it has an open posted entry in, which gives it a row on
 * every account in that currency.
 */
export interface CounterpartyOpenFigures {
  counterparty_id: string;
  currency: string;
  open_receivable_minor: number;
  open_payable_minor: number;
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
 * entries. `open` by counterparty id, then currency; `accounts` by account as
 * met, then counterparty id.
 */
export function counterpartyFigures(
  ids: readonly string[],
  transactions: ReadonlyArray<CounterpartyTransaction & Pick<BankTransaction, 'bank_account_id'>>,
  entries: readonly CounterpartyEntry[],
  links: readonly CounterpartyLink[],
  settlementAccounts: readonly string[],
): { counterparties: CounterpartyFigures[]; open: CounterpartyOpenFigures[]; accounts: AccountCounterpartyFigures[] } {
  const unique = [...new Set(ids)];
  const wanted = new Set(unique);
  const names = latestNamed(transactions);
  const counterparties = unique.map((id): CounterpartyFigures => ({
    counterparty_id: id,
    name: names.get(id)?.name ?? null,
    name_key: names.get(id)?.key ?? null,
  }));
  const open: CounterpartyOpenFigures[] = [];
  for (const currency of [...new Set(entries.map((e) => e.currency))].sort())
    for (const r of counterpartyRows([], entries, links, settlementAccounts, currency))
      if (wanted.has(r.counterparty_id))
        open.push({
          counterparty_id: r.counterparty_id,
          currency,
          open_receivable_minor: r.open_receivable_minor,
          open_payable_minor: r.open_payable_minor,
        });
  open.sort((a, b) => compareIds(a.counterparty_id, b.counterparty_id) || compareIds(a.currency, b.currency));
  return { counterparties, open, accounts: accountRows(transactions, links) };
}

/** Each account's rows of its counterparties: count, Σ positive remainders (book-reads.ts `counterpartyRows`), latest name. */
function accountRows(
  transactions: ReadonlyArray<CounterpartyTransaction & Pick<BankTransaction, 'bank_account_id'>>,
  links: readonly CounterpartyLink[],
): AccountCounterpartyFigures[] {
  const linksOf = new Map<string, CounterpartyLink[]>();
  for (const l of links) {
    const own = linksOf.get(l.bank_transaction_id);
    if (own) own.push(l);
    else linksOf.set(l.bank_transaction_id, [l]);
  }
  const byAccount = new Map<string, Array<(typeof transactions)[number]>>();
  for (const t of transactions) {
    if (t.counterparty_id === null) continue;
    const own = byAccount.get(t.bank_account_id);
    if (own) own.push(t);
    else byAccount.set(t.bank_account_id, [t]);
  }
  const accounts: AccountCounterpartyFigures[] = [];
  for (const [account, own] of byAccount) {
    const named = latestNamed(own);
    const rows = new Map<string, AccountCounterpartyFigures>();
    for (const t of own) {
      const cp = t.counterparty_id!;
      let r = rows.get(cp);
      if (!r) {
        const latest = named.get(cp);
        r = {
          bank_account_id: account,
          counterparty_id: cp,
          transactions: 0,
          unlinked_bank_minor: 0,
          name: latest?.name ?? null,
          name_key: latest?.key ?? null,
        };
        rows.set(cp, r);
      }
      r.transactions += 1;
      r.unlinked_bank_minor += Math.max(0, remainderMinor(t, linksOf.get(t.id) ?? []));
    }
    accounts.push(...[...rows.values()].sort((a, b) => compareIds(a.counterparty_id, b.counterparty_id)));
  }
  return accounts;
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
 * open figures in the account's currency, both by id and after the same
 * position; `openOf` those of the account's rows (from `open` or read apart),
 * `namesOf` the organisation's latest names of the open counterparties
 * without a row on the account. A counterparty with both is one row.
 */
export function counterpartyPage(
  onAccount: readonly AccountCounterpartyFigures[],
  open: readonly CounterpartyOpenFigures[],
  openOf: ReadonlyMap<string, CounterpartyOpenFigures>,
  namesOf: ReadonlyMap<string, string | null>,
  limit: number,
): CounterpartyRow[] {
  const rows = new Map<string, CounterpartyRow>();
  for (const a of onAccount) {
    const o = openOf.get(a.counterparty_id);
    rows.set(a.counterparty_id, {
      counterparty_id: a.counterparty_id,
      name: a.name,
      open_receivable_minor: o?.open_receivable_minor ?? 0,
      open_payable_minor: o?.open_payable_minor ?? 0,
      unlinked_bank_minor: a.unlinked_bank_minor,
    });
  }
  for (const o of open) {
    if (rows.has(o.counterparty_id)) continue;
    rows.set(o.counterparty_id, {
      counterparty_id: o.counterparty_id,
      name: namesOf.get(o.counterparty_id) ?? null,
      open_receivable_minor: o.open_receivable_minor,
      open_payable_minor: o.open_payable_minor,
      unlinked_bank_minor: 0,
    });
  }
  return [...rows.values()].sort((a, b) => compareIds(a.counterparty_id, b.counterparty_id)).slice(0, limit);
}
