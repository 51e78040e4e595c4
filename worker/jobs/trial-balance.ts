// The trial balance (docs/reference/book-reads.md "Trial balance"): from the
// day totals the worker keeps as the books change (shared/storage/day-totals.ts,
// docs/reference/book-reads.md "Kept figures"), stale ones brought up to date
// first, and the opening balances derived from the accounts and each one's
// first transaction. Read only on the books; the sums are the domain's
// (shared/domain/trial-balance-days.ts, shared/domain/trial-balance.ts).
import type { Db } from 'mongodb';
import { bankSide } from '../../shared/domain/ledger-postings.js';
import { namedTrialBalance, type TrialBalance } from '../../shared/domain/trial-balance.js';
import { trialBalanceFromDays } from '../../shared/domain/trial-balance-days.js';
import type { TrialBalanceInput } from '../../shared/queue/read-jobs.js';
import { readFresh } from '../../shared/storage/book-figures.js';
import { readDays, readOpeningBooks } from '../../shared/storage/day-totals.js';
import { readChart } from '../../shared/storage/ledger-accounts.js';

export async function readTrialBalance(db: Db, orgId: string, input: TrialBalanceInput): Promise<TrialBalance> {
  const [days, opening, chart] = await Promise.all([
    readFresh(db, orgId, () => readDays(db, orgId, input.as_of)),
    readOpeningBooks(db, orgId),
    readChart(db, orgId),
  ]);
  // Only the opening balances: the accounts' first transactions date them.
  const openings = bankSide({ settlementAccounts: [], entries: [], links: [], ...opening }).filter(
    (tx) => tx.source.kind === 'opening_balance',
  );
  const rows = trialBalanceFromDays(days, openings, input.as_of);
  return { as_of: input.as_of, items: namedTrialBalance(rows, chart) };
}
