// Load → decide → write for a bank reconciliation (DESIGN §5.1, plan §5.5).
// Reads are indexed and selective: the account, the requested transactions by
// `_id`, their links, and the account's unreconciled ids up to the statement
// end (for the left-out count); nothing else of the account is loaded.
import { compareIds } from '../../shared/domain/books.js';
import { decideReconciliation, reconcileScopeKey, type ReconciliationRequest } from '../../shared/domain/reconcile-checks.js';
import type { PendingHolder } from '../../shared/domain/scope.js';
import { AppError } from '../../shared/errors.js';
import type { JobOutcome } from '../../shared/queue/stage-jobs.js';
import type { ReconcileStageRequestBody } from '../../shared/schemas/reconcile-stage.js';
import {
  findAccount, findLinksOfTransactions, findOrg, findTransactionsByIds, findUnreconciledThrough,
} from '../../shared/storage/books-read.js';
import { liveHolders, lockKeys } from '../../shared/storage/scope-locks.js';
import type { JobContext } from '../job-context.js';
import { answerDecision, operationIdFor } from '../staging/commit-staged.js';

export async function stageReconciliation(ctx: JobContext): Promise<JobOutcome> {
  const { db, data, now } = ctx;
  const input = data.input as unknown as ReconcileStageRequestBody;
  const orgId = data.org_id;
  const org = await findOrg(db, orgId);
  if (!org) throw new AppError('not_found', { details: { resource: 'Organisation', id: orgId } });

  const requestedIds = [...new Set(input.transaction_ids)].sort(compareIds);
  const account = await findAccount(db, orgId, input.bank_account_id);
  // Without the account there is nothing to load: the domain answers not_found.
  const [transactions, unreconciled] = account
    ? await Promise.all([
        findTransactionsByIds(db, orgId, requestedIds),
        findUnreconciledThrough(db, orgId, account.id, input.statement.end_date),
      ])
    : [[], []];
  const ownIds = account ? transactions.filter((t) => t.bank_account_id === account.id).map((t) => t.id) : [];
  const links = await findLinksOfTransactions(db, orgId, ownIds);

  const keys = lockKeys(orgId, { scope_key: reconcileScopeKey(input.bank_account_id), entry_ids: [], transaction_ids: requestedIds });
  const pending: PendingHolder[] = await liveHolders(db, orgId, keys, now, operationIdFor(ctx));

  const request: ReconciliationRequest = {
    bank_account_id: input.bank_account_id,
    statement: { ...input.statement, reference: input.statement.reference ?? null },
    transaction_ids: requestedIds,
    note: input.note ?? null,
  };
  const decision = decideReconciliation({ org, account, transactions, links, unreconciled_up_to_end: unreconciled, pending }, request);
  if (!decision.ok) throw decision.error;
  // An existing operation has the very same plan (plan_hash covers left_out),
  // so the warnings stored with it are this plan's: existingOutcome answers them.
  const warnings = decision.value.outcome === 'staged' ? decision.value.warnings.map((w) => ({ code: w.code, message: w.message, details: { ...w.details } })) : [];
  return answerDecision(ctx, 'bank_reconcile', decision.value, { warnings });
}
