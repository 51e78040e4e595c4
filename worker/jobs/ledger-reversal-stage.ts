// A ledger reversal (docs/http-api.md, reversal stage): load the entry, its
// links and their transactions and whoever holds them; decide by the pure rule.
import { compareIds, type Org } from '../../shared/domain/books.js';
import { decideReversal, reversalScopeKey, type ReversalBooks, type ReversalPlan } from '../../shared/domain/reversal-plan.js';
import { utcDate } from '../../shared/dates.js';
import { findEntry, findLinks, findTransactionsByIds } from '../../shared/storage/books-read.js';
import { liveHolders, lockKeys } from '../../shared/storage/scope-locks.js';
import type { JobContext } from '../job-context.js';
import { operationIdFor } from '../staging/commit-decision.js';
import { stagingJob } from '../staging/staging-job.js';

type Op = 'ledger_reversal.stage';

async function load(ctx: JobContext<Op>, org: Org): Promise<ReversalBooks> {
  const { db, data, now } = ctx;
  const orgId = data.org_id;
  const entryId = data.input.entry_id;
  // The entry and its links at once (a missing entry has no links; `decide` refuses it).
  const [entry, entryLinks] = await Promise.all([findEntry(db, orgId, entryId), findLinks(db, orgId, 'ledger_entry_id', [entryId])]);
  const links = entry ? entryLinks : [];
  const transactionIds = [...new Set(links.map((l) => l.bank_transaction_id))].sort(compareIds);
  const keys = lockKeys(orgId, { scope_key: reversalScopeKey(entryId), entry_ids: [entryId], transaction_ids: transactionIds });
  const [transactions, pending] = await Promise.all([
    findTransactionsByIds(db, orgId, transactionIds),
    liveHolders(db, orgId, keys, now, operationIdFor(ctx)),
  ]);
  return { org, entry, links, transactions, pending };
}

export const stageLedgerReversal = stagingJob<Op, ReversalBooks, ReversalPlan>({
  kind: 'ledger_reversal',
  load,
  decide: (books, { data }) => {
    const { input } = data;
    return decideReversal(books, { entry_id: input.entry_id, reversal_date: input.reversal_date ?? utcDate(data.requested_at), reason: input.reason ?? null });
  },
});
