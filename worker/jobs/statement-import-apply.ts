// A statement import's own checks at apply (docs/guide/statement-import.md "Apply"):
// beside the plan's preconditions, it is stale when the account meanwhile got a
// transaction with one of its new transactions' bank references (only the
// transactions carrying one of those references are read, not the account), or
// when the organisation's lock date now covers one of its new transactions.
import type { ChangedPrecondition, PeriodLocked } from '../../shared/domain/preconditions.js';
import { bankReferenceClashes, lockedNewTransactions } from '../../shared/domain/statement-import/apply-check.js';
import type { StatementImportPlan } from '../../shared/domain/statement-import/plan.js';
import type { StagedOperationDoc } from '../../shared/storage/collections.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { accountTransactionsByReference } from '../../shared/storage/statement-import-read.js';
import type { JobContext } from '../job-context.js';

export async function importClashes(ctx: JobContext, op: StagedOperationDoc): Promise<ChangedPrecondition[]> {
  const plan = op.plan as StatementImportPlan;
  const references = plan.new_transactions.flatMap((t) => (t.bank_reference === null ? [] : [t.bank_reference]));
  if (references.length === 0) return [];
  return bankReferenceClashes(
    plan,
    await accountTransactionsByReference(ctx.db, ctx.data.org_id, plan.bank_account_id, references),
  );
}

/** The new transactions the organisation's lock date now covers (closed since staging): its `stale_plan`'s details, or null. */
export async function importLocked(ctx: JobContext, op: StagedOperationDoc): Promise<PeriodLocked | null> {
  const lockDate = (await findOrg(ctx.db, ctx.data.org_id))?.lock_date ?? null;
  const ids = lockedNewTransactions(op.plan as StatementImportPlan, lockDate);
  return ids.length === 0 || lockDate === null
    ? null
    : { reason: 'period_locked', lock_date: lockDate, transaction_ids: ids };
}
