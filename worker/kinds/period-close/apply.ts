// Apply's part of a period close (docs/design/staged-lifecycle.md "Closed
// periods"): the pending operations are judged again against the new lock
// (one staged since the close was staged makes apply answer
// `pending_operation`), then the period is read whole and hashed
// (shared/domain/period-hash.ts) for the journal, which stores it.
import { periodHash } from '../../../shared/domain/period-hash.js';
import type { ApplyBooks } from '../../../shared/domain/apply-journal.js';
import type { RefusedDecision } from '../../../shared/domain/decision.js';
import type { PeriodCloseApplyBooks } from '../../../shared/kinds/period-close/journal.js';
import type { PeriodClosePlan } from '../../../shared/kinds/period-close/plan.js';
import { findOrg } from '../../../shared/storage/books-read.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { readPeriodRecords } from '../../../shared/storage/period-records.js';
import type { JobContext } from '../../job-context.js';
import { operationsRefusedBy, type LockJudge } from './lock-judge.js';

/**
 * 409 `pending_operation` while operations that would book in the period are pending (staged since the close
 * was staged): the close stays approved and may be applied once they are applied or rejected.
 */
export async function closePending(
  ctx: JobContext,
  op: StagedOperationDoc,
  judge: LockJudge,
): Promise<Pick<RefusedDecision, 'code' | 'details'> | null> {
  const { through } = op.plan as PeriodClosePlan;
  const ids = (await operationsRefusedBy(ctx, judge, through)).filter((id) => id !== op._id);
  return ids.length > 0
    ? { code: 'pending_operation', details: { through, operation_ids: ids, staged_operation_ids: ids } }
    : null;
}

/** Who approved the operation: the actor of its last transition to `approved`. */
function approver(op: StagedOperationDoc): string {
  const approved = op.history.filter((h) => h.to === 'approved');
  return approved[approved.length - 1]?.actor ?? '';
}

/** The organisation as apply found it, the period's hash and the approver: what the close's journal writes. */
export async function closeApplyBooks(ctx: JobContext, op: StagedOperationDoc): Promise<Partial<ApplyBooks>> {
  const { through } = op.plan as PeriodClosePlan;
  const [org, records] = await Promise.all([
    findOrg(ctx.db, ctx.data.org_id),
    readPeriodRecords(ctx.db, ctx.data.org_id),
  ]);
  if (!org) return {};
  const kind: PeriodCloseApplyBooks = {
    org: { id: org.id, version: org.version, lock_date: org.lock_date },
    hash: periodHash(through, records.entries, records.transactions),
    approved_by: approver(op),
  };
  return { kind };
}
