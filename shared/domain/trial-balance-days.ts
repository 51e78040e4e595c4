// The trial balance from kept day totals (docs/design/ledger-postings.md
// "Trial balance"): per day, the debit and credit totals per account and
// currency of the ledger's postings of that day, opening balances apart (they
// are dated by each account's first transaction, read with the balance). The
// balance as of a day sums the days on or before it and the opening
// balances dated so: the rows trialBalance gives over every posting. Exact:
// totals are decimal strings, summed as BigInt.
import { compareIds, type IsoDate } from './books.js';
import type { LedgerTransaction } from './ledger-postings.js';
import { totalRows, type PostingGroup, type TrialBalanceRow } from './trial-balance.js';

export interface DayRow {
  account: string;
  currency: string;
  debit_minor: string;
  credit_minor: string;
}

/** One day's totals being summed, by `account\u0000currency`. */
type DaySums = Map<string, { account: string; currency: string; debit: bigint; credit: bigint }>;

/** Add debit and credit (integers, or decimal strings of them) to the row of account and currency. */
function addToDay(
  day: DaySums,
  account: string,
  currency: string,
  debit: number | string,
  credit: number | string,
): void {
  const key = `${account}\u0000${currency}`;
  const row = day.get(key);
  if (row) {
    row.debit += BigInt(debit);
    row.credit += BigInt(credit);
  } else day.set(key, { account, currency, debit: BigInt(debit), credit: BigInt(credit) });
}

/** A day's sums as its rows, by account then currency. */
function asRows(day: DaySums): DayRow[] {
  return [...day.values()]
    .sort((a, b) => compareIds(a.account, b.account) || compareIds(a.currency, b.currency))
    .map((r) => ({
      account: r.account,
      currency: r.currency,
      debit_minor: r.debit.toString(),
      credit_minor: r.credit.toString(),
    }));
}

/** Each day's rows of `transactions` (opening balances left out), by account then currency; a day in `days` without postings has none. */
export function dayRows(
  transactions: readonly LedgerTransaction[],
  days: Iterable<IsoDate> = [],
): Map<IsoDate, DayRow[]> {
  const byDay = new Map<IsoDate, DaySums>();
  for (const d of days) byDay.set(d, new Map());
  for (const tx of transactions) {
    if (tx.source.kind === 'opening_balance') continue;
    let day = byDay.get(tx.date);
    if (!day) {
      day = new Map();
      byDay.set(tx.date, day);
    }
    for (const p of tx.postings) addToDay(day, p.account, tx.currency, p.debit_minor, p.credit_minor);
  }
  return new Map([...byDay].map(([date, day]) => [date, asRows(day)]));
}

/** A day's kept rows and added rows summed per account and currency, in dayRows' order (exact: BigInt). */
export function addDayRows(kept: readonly DayRow[], added: readonly DayRow[]): DayRow[] {
  const day: DaySums = new Map();
  for (const r of [...kept, ...added]) addToDay(day, r.account, r.currency, r.debit_minor, r.credit_minor);
  return asRows(day);
}

/** The trial balance's rows as of `asOf`: the kept days on or before it, and the opening balances dated so. */
export function trialBalanceFromDays(
  days: ReadonlyArray<{ date: IsoDate; rows: readonly DayRow[] }>,
  openings: readonly LedgerTransaction[],
  asOf: IsoDate,
): TrialBalanceRow[] {
  const groups: PostingGroup[] = [];
  for (const day of days) {
    if (day.date > asOf) continue;
    for (const r of day.rows) groups.push({ currency: r.currency, postings: [r] });
  }
  for (const tx of openings) if (tx.date <= asOf) groups.push(tx);
  return totalRows(groups);
}
