// A statement import's own checks at apply (docs/guide/statement-import.md "Apply"):
// beside the plan's preconditions, it is stale when the account meanwhile got a
// transaction with one of its new transactions' bank references (only the
// transactions carrying one of those references are read, not the account). Its
// lock-date check is pure (lockedImport, worker/kinds.ts).
import type { ChangedPrecondition } from '../../../shared/domain/preconditions.js';
import { bankReferenceClashes } from '../../../shared/kinds/statement-import/apply-check.js';
import type { StatementImportPlan } from '../../../shared/kinds/statement-import/plan.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { accountTransactionsByReference } from '../../../shared/storage/statement-import-read.js';
import type { JobContext } from '../../job-context.js';

export async function importClashes(ctx: JobContext, op: StagedOperationDoc): Promise<ChangedPrecondition[]> {
  const plan = op.plan as StatementImportPlan;
  const references = plan.new_transactions.flatMap((t) => (t.bank_reference === null ? [] : [t.bank_reference]));
  if (references.length === 0) return [];
  return bankReferenceClashes(
    plan,
    await accountTransactionsByReference(ctx.db, ctx.data.org_id, plan.bank_account_id, references),
  );
}
