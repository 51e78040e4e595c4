// The trial balance (docs/design/ledger-postings.md "Trial balance"): per
// account and currency, the debit and credit totals of the ledger's postings
// dated on or before a day, and their difference. Pure and exact.
import { compareIds, type IsoDate, type LedgerAccount, type LedgerAccountType } from './books.js';
import { OPENING_BALANCE_ACCOUNT, SUSPENSE_ACCOUNT, type LedgerTransaction } from './ledger-postings.js';
import { minorOut } from './minor-units.js';

export interface TrialBalanceRow {
  account: string;
  currency: string;
  debit_minor: number | string;
  credit_minor: number | string;
  /** debit − credit. */
  balance_minor: number | string;
}

/** Postings of one currency: a ledger transaction, or a day's kept totals (shared/domain/trial-balance-days.ts). */
export interface PostingGroup {
  currency: string;
  postings: ReadonlyArray<{ account: string; debit_minor: number | string; credit_minor: number | string }>;
}

/** Rows by account code, then currency (byte order); an account that only ever balanced to nothing still has its row. */
export function trialBalance(transactions: readonly LedgerTransaction[], asOf: IsoDate): TrialBalanceRow[] {
  return totalRows(transactions.filter((tx) => tx.date <= asOf));
}

/** trialBalance's rows of these groups, whatever their dates. */
export function totalRows(groups: Iterable<PostingGroup>): TrialBalanceRow[] {
  const totals = new Map<string, { account: string; currency: string; debit: bigint; credit: bigint }>();
  for (const tx of groups) {
    for (const p of tx.postings) {
      const key = `${p.account}\u0000${tx.currency}`;
      let row = totals.get(key);
      if (!row) {
        row = { account: p.account, currency: tx.currency, debit: 0n, credit: 0n };
        totals.set(key, row);
      }
      row.debit += BigInt(p.debit_minor);
      row.credit += BigInt(p.credit_minor);
    }
  }
  return [...totals.values()]
    .sort((a, b) => compareIds(a.account, b.account) || compareIds(a.currency, b.currency))
    .map((r) => ({
      account: r.account,
      currency: r.currency,
      debit_minor: minorOut(r.debit),
      credit_minor: minorOut(r.credit),
      balance_minor: minorOut(r.debit - r.credit),
    }));
}

/** A row with the chart's name and type of its account; null where the account is in no chart. */
export interface NamedTrialBalanceRow extends TrialBalanceRow {
  name: string | null;
  type: LedgerAccountType | null;
}

/** GET /api/v1/cli/ledger/trial-balance (docs/reference/book-reads.md "Trial balance"). */
export interface TrialBalance {
  as_of: IsoDate;
  items: NamedTrialBalanceRow[];
}

/** The two accounts the bank side derives, named as a chart would name them (a chart's own entry for the code wins). */
export const DERIVED_ACCOUNTS: readonly LedgerAccount[] = [
  { code: OPENING_BALANCE_ACCOUNT, name: 'Opening balances', type: 'equity', active: true },
  { code: SUSPENSE_ACCOUNT, name: 'Suspense', type: 'asset', active: true },
];

export function namedTrialBalance(
  rows: readonly TrialBalanceRow[],
  chart: readonly LedgerAccount[],
): NamedTrialBalanceRow[] {
  const byCode = new Map<string, LedgerAccount>([...DERIVED_ACCOUNTS, ...chart].map((a) => [a.code, a]));
  return rows.map((r) => {
    const account = byCode.get(r.account);
    return { ...r, name: account?.name ?? null, type: account?.type ?? null };
  });
}
