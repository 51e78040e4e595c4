// Apply's lock-date check for the kinds that book a dated record (docs/design/staged-lifecycle.md
// "Closed periods"): the organisation's lock date is read again, and a plan that would now write into the
// closed period is stale. A statement import's is beside its other apply checks (statement-import-apply.ts).
import type { IsoDate } from '../../shared/domain/books.js';
import type { PeriodLocked } from '../../shared/domain/preconditions.js';
import { lockedReconciliation, type ReconciliationPlan } from '../../shared/domain/reconcile-checks.js';
import { lockedReversal, type ReversalPlan } from '../../shared/domain/reversal-plan.js';
import type { StagedOperationDoc } from '../../shared/storage/collections.js';
import { findOrg } from '../../shared/storage/books-read.js';
import type { JobContext } from '../job-context.js';

async function currentLockDate(ctx: JobContext): Promise<IsoDate | null> {
  return (await findOrg(ctx.db, ctx.data.org_id))?.lock_date ?? null;
}

/** A reconciliation whose statement end the lock date now covers. */
export async function reconcileLocked(ctx: JobContext, op: StagedOperationDoc): Promise<PeriodLocked | null> {
  return lockedReconciliation(op.plan as ReconciliationPlan, await currentLockDate(ctx));
}

/** A reversal whose reversing entry's date the lock date now covers. */
export async function reversalLocked(ctx: JobContext, op: StagedOperationDoc): Promise<PeriodLocked | null> {
  return lockedReversal(op.plan as ReversalPlan, await currentLockDate(ctx));
}
