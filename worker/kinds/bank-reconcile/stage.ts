// A bank reconciliation (docs/reference/http-api.md, reconcile stage). Reads are indexed
// and selective: the account, the requested transactions by `_id`, their
// links, and the account's unreconciled ids up to the statement end (for the
// left-out count); nothing else of the account is loaded.
import { compareIds } from '../../../shared/domain/books.js';
import {
  decideReconciliation,
  reconcileSubjectKey,
  type ReconciliationBooks,
  type ReconciliationPlan,
} from '../../../shared/kinds/bank-reconcile/plan.js';
import {
  findAccount,
  findEntriesByIds,
  findLinks,
  findTransactionsByIds,
  findUnreconciledThrough,
} from '../../../shared/storage/books-read.js';
import { reconcileContext } from '../../../shared/kinds/bank-reconcile/context.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { pendingHolders } from '../../operation/commit-decision.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'bank_reconcile.stage';

async function load(ctx: JobContext<Op>): Promise<Omit<ReconciliationBooks, 'org'>> {
  const { db, data } = ctx;
  const { input, org_id: orgId } = data;
  const requestedIds = [...new Set(input.transaction_ids)].sort(compareIds);
  const account = await findAccount(db, orgId, input.bank_account_id);
  const keys = lockKeys(orgId, {
    subject_key: reconcileSubjectKey(input.bank_account_id),
    entry_ids: [],
    transaction_ids: requestedIds,
  });
  // Without the account there is nothing to load: the domain answers not_found.
  const [transactions, unreconciled, pending] = account
    ? await Promise.all([
        findTransactionsByIds(db, orgId, requestedIds),
        findUnreconciledThrough(db, orgId, account.id, input.statement.end_date),
        pendingHolders(ctx, keys),
      ])
    : [[], [], []];
  const ownIds = account ? transactions.filter((t) => t.bank_account_id === account.id).map((t) => t.id) : [];
  const links = await findLinks(db, orgId, 'bank_transaction_id', ownIds);
  return { account, transactions, links, unreconciled_up_to_end: unreconciled, pending };
}

export const stageReconciliation = stagingJob<Op, Omit<ReconciliationBooks, 'org'>, ReconciliationPlan>({
  kind: 'bank_reconcile',
  load,
  decide: (books, org, { data }) => {
    const { input } = data;
    return decideReconciliation(
      { ...books, org },
      {
        bank_account_id: input.bank_account_id,
        statement: { ...input.statement, reference: input.statement.reference ?? null },
        transaction_ids: [...new Set(input.transaction_ids)].sort(compareIds),
        note: input.note ?? null,
      },
    );
  },
  // The entries the links point to are the one read more, by `_id`, and only for a plan.
  context: async (books, plan, org, { db, data }) => {
    const entryIds = [...new Set(plan.transactions.flatMap((t) => t.links.map((l) => l.ledger_entry_id)))].sort(
      compareIds,
    );
    const entries = entryIds.length ? await findEntriesByIds(db, data.org_id, entryIds) : [];
    return reconcileContext(
      plan,
      { account: books.account, transactions: books.transactions, entries },
      org.settlement_accounts,
    );
  },
});
