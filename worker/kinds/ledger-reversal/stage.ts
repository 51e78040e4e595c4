// A ledger reversal (docs/reference/http-api.md, reversal stage): load the entry, its
// links and their transactions; decide by the pure rule. Whoever holds its
// keys is read only when it can change the answer (the pending gate,
// worker/operation/staging-job.ts).
import { compareIds } from '../../../shared/domain/books.js';
import {
  decideReversal,
  reversalSubjectKey,
  type ReversalBooks,
  type ReversalPlan,
} from '../../../shared/kinds/ledger-reversal/plan.js';
import { utcDate } from '../../../shared/domain/dates.js';
import { reversalContext } from '../../../shared/kinds/ledger-reversal/context.js';
import { findEntry, findLinks, findTransactionsByIds } from '../../../shared/storage/books-read.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'ledger_reversal.stage';
type Books = Omit<ReversalBooks, 'org'>;

async function load(ctx: JobContext<Op>): Promise<Books> {
  const { db, data } = ctx;
  const orgId = data.org_id;
  const entryId = data.input.entry_id;
  // The entry and its links at once (a missing entry has no links; `decide` refuses it).
  const [entry, entryLinks] = await Promise.all([
    findEntry(db, orgId, entryId),
    findLinks(db, orgId, 'ledger_entry_id', [entryId]),
  ]);
  const links = entry ? entryLinks : [];
  const transactions = await findTransactionsByIds(db, orgId, transactionIdsOf(links));
  return { entry, links, transactions, pending: [] };
}

function transactionIdsOf(links: Books['links']): string[] {
  return [...new Set(links.map((l) => l.bank_transaction_id))].sort(compareIds);
}

export const stageLedgerReversal = stagingJob<Op, Books, ReversalPlan>({
  kind: 'ledger_reversal',
  load,
  decide: (books, org, { data }) => {
    const { input } = data;
    return decideReversal(
      { ...books, org },
      {
        entry_id: input.entry_id,
        reversal_date: input.reversal_date ?? utcDate(data.requested_at),
        reason: input.reason ?? null,
      },
    );
  },
  context: (books, plan, org) => reversalContext(plan, books, org.settlement_accounts),
  // The keys a staged reversal locks (decideReversal): its subject, the entry, the links' transactions.
  pendingGate: {
    keys: (books, { data }) =>
      lockKeys(data.org_id, {
        subject_key: reversalSubjectKey(data.input.entry_id),
        entry_ids: [data.input.entry_id],
        transaction_ids: transactionIdsOf(books.links),
      }),
    withHolders: (books, holders) => ({ ...books, pending: holders }),
  },
});
