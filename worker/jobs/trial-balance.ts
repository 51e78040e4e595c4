// The trial balance (docs/reference/book-reads.md "Trial balance"): every
// entry, transaction and link of the organisation, so it is computed here
// rather than in the API. Read only; the postings and sums are the domain's
// (shared/domain/ledger-postings.ts, shared/domain/trial-balance.ts).
import type { Db } from 'mongodb';
import { ledgerTransactions } from '../../shared/domain/ledger-postings.js';
import { namedTrialBalance, trialBalance, type TrialBalance } from '../../shared/domain/trial-balance.js';
import type { TrialBalanceInput } from '../../shared/queue/read-jobs.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { readPostingBooks } from '../../shared/storage/books-whole.js';
import { readChart } from '../../shared/storage/ledger-accounts.js';

export async function readTrialBalance(db: Db, orgId: string, input: TrialBalanceInput): Promise<TrialBalance> {
  const [org, chart] = await Promise.all([findOrg(db, orgId), readChart(db, orgId)]);
  const books = await readPostingBooks(db, orgId, org?.settlement_accounts ?? []);
  const rows = trialBalance(ledgerTransactions(books), input.as_of);
  return { as_of: input.as_of, items: namedTrialBalance(rows, chart) };
}
