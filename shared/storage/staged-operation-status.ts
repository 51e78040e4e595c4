// Moving a staged operation between statuses (docs/staged-lifecycle.md).
// Every transition is one compare-and-set on `status`: the update matches
// only while the operation is still in the status the decision saw, and
// pushes the history item in the same single-document write. Two racing
// approvers: one update matches, the other sees the new status.
import type { Db, Filter, UpdateFilter } from 'mongodb';
import { FINAL_STATUSES, type StagedStatus } from '../domain/staged-transitions.js';
import { recordTransition } from './audit-events.js';
import { collections } from './collections.js';
import { releaseLocks } from './scope-locks.js';
import type { ApplyJournalState } from './staged-apply-state.js';
import type { HistoryItem, StagedOperationDoc } from './staged-operations.js';

export async function transitionStatus(
  db: Db, orgId: string, id: string, from: StagedStatus, item: HistoryItem & { to: StagedStatus }, set: Partial<StagedOperationDoc> = {},
): Promise<boolean> {
  const r = await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: from },
    { $set: { ...set, status: item.to }, $push: { history: item } } as UpdateFilter<StagedOperationDoc>,
  );
  return r.modifiedCount === 1;
}

/**
 * What follows a transition, idempotent so that a job retried after a crash
 * can run it again: an audit event per history item (ids derived from the
 * transition), and, once final, every scope lock of the operation released.
 */
export async function settleOperation(db: Db, op: StagedOperationDoc): Promise<void> {
  if (FINAL_STATUSES.includes(op.status)) await releaseLocks(db, op._id);
  for (const h of op.history) {
    await recordTransition(db, {
      org_id: op.org_id, at: h.at, actor: h.actor, request_id: h.request_id ?? op.request_id,
      staged_operation_id: op._id, from: h.from, to: h.to, note: h.note,
    });
  }
}

/** The lease on a running apply journal: taken by its owner again, or by anyone once it lapsed. */
export async function takeApplyLease(db: Db, orgId: string, id: string, jobId: string, now: Date, leaseMs: number): Promise<boolean> {
  const r = await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: 'applying', $or: [{ 'apply.owner': jobId }, { 'apply.lease_until': { $lt: now.toISOString() } }] } as Filter<StagedOperationDoc>,
    { $set: { 'apply.owner': jobId, 'apply.lease_until': new Date(now.getTime() + leaseMs).toISOString() } },
  );
  return r.matchedCount === 1;
}

/** Record journal progress (and renew the lease) while `jobId` still holds it; false when it lost the lease. */
export async function recordApplyProgress(
  db: Db, orgId: string, id: string, jobId: string, progress: Partial<Pick<ApplyJournalState, 'done' | 'undone' | 'phase' | 'conflict'>>, leaseMs: number,
): Promise<boolean> {
  const set: Record<string, unknown> = { 'apply.lease_until': new Date(Date.now() + leaseMs).toISOString() };
  for (const [k, v] of Object.entries(progress)) set[`apply.${k}`] = v;
  const r = await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: 'applying', 'apply.owner': jobId } as Filter<StagedOperationDoc>,
    { $set: set },
  );
  return r.matchedCount === 1;
}
