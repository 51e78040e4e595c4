// Moving a staged operation between statuses (docs/design/staged-lifecycle.md).
// A transition is claimed first: its audit event is inserted under an id
// derived from (operation, status left), so exactly one transition out of a
// status wins (audit-events.ts claimTransition). Only the winner then writes
// the operation: status, history item and the transition's own fields.
// Two racing approvers: one claim, one audit event, one history item.
import type { Db } from 'mongodb';
import { FINAL_STATUSES, type StagedStatus } from '../domain/staged-transitions.js';
import { claimTransition } from './audit-events.js';
import { type AuditEventDoc } from './collections.js';
import { collections } from './collections.js';
import { releaseLocks } from './scope-locks.js';
import type { ApplyJournalState, ApplyResult } from './staged-apply-state.js';
import type { HistoryItem, StagedOperationDoc } from './collections.js';

export type TransitionOutcome = { won: true } | { won: false; claim: AuditEventDoc };

/**
 * Claim `from` → `item.to` and, when this request holds the claim (now or
 * from an earlier attempt: same request id), write it onto the operation.
 */
export async function transitionStatus(
  db: Db, orgId: string, id: string, from: StagedStatus, item: HistoryItem & { to: StagedStatus; request_id: string }, set: Partial<StagedOperationDoc> = {},
): Promise<TransitionOutcome> {
  const claim = await claimTransition(db, {
    org_id: orgId, staged_operation_id: id, at: item.at, actor: item.actor, request_id: item.request_id, from, to: item.to, note: item.note,
    ...(set.result ? { result: set.result } : {}),
  });
  if (claim.request_id !== item.request_id) return { won: false, claim };
  await writeTransition(db, orgId, id, from, item, set);
  return { won: true };
}

/**
 * Write a claimed transition that the operation does not show yet: its
 * winner's job died between the claim and this write. Only the apply lease
 * holder calls it, for the end of an apply (the claim carries the result).
 */
export async function rollForward(db: Db, orgId: string, id: string, claim: AuditEventDoc): Promise<void> {
  const item: HistoryItem = { at: claim.at, actor: claim.actor, from: claim.from as StagedStatus, to: claim.to as StagedStatus, note: claim.note ?? null, request_id: claim.request_id };
  await writeTransition(db, orgId, id, claim.from as StagedStatus, item, claim.result ? { result: claim.result as ApplyResult } : {});
}

async function writeTransition(db: Db, orgId: string, id: string, from: StagedStatus, item: HistoryItem, set: Partial<StagedOperationDoc>): Promise<void> {
  // Guarded by status, so a retried attempt does not push the history item twice.
  await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: from },
    { $set: { ...set, status: item.to }, $push: { history: item } },
  );
}

/** Once final, every scope lock of the operation goes, at once. Idempotent: a retried job runs it again. */
export async function settleOperation(db: Db, op: StagedOperationDoc): Promise<void> {
  if (FINAL_STATUSES.includes(op.status)) await releaseLocks(db, op.org_id, op._id);
}

/**
 * The lease on a running apply journal: its owner (the same job, retried)
 * renews it; anyone takes it once it lapsed. A takeover is claimed by
 * inserting `_id` = operation + the lapsed lease's end, so two jobs meeting
 * the same lapsed lease cannot both take it (updates are not atomic on
 * FerretDB; unique ids are).
 */
export async function takeApplyLease(db: Db, orgId: string, id: string, jobId: string, now: Date, leaseMs: number): Promise<boolean> {
  const ops = collections(db).stagedOperations;
  const op = await ops.findOne({ _id: id, org_id: orgId });
  if (!op || op.status !== 'applying' || !op.apply) return false;
  const until = new Date(now.getTime() + leaseMs).toISOString();
  if (op.apply.owner !== jobId) {
    if (op.apply.lease_until >= now.toISOString()) return false;
    try {
      await db.collection<{ _id: string; org_id: string; owner: string; at: string }>('apply_lease_takeovers')
        .insertOne({ _id: `${id}:${op.apply.lease_until}`, org_id: orgId, owner: jobId, at: now.toISOString() });
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }
  await ops.updateOne({ _id: id, org_id: orgId, status: 'applying' }, { $set: { 'apply.owner': jobId, 'apply.lease_until': until } });
  return true;
}

/** Record journal progress (and renew the lease) while `jobId` still holds it; false when it lost the lease. */
export async function recordApplyProgress(
  db: Db, orgId: string, id: string, jobId: string, progress: Partial<Pick<ApplyJournalState, 'done' | 'undone' | 'phase' | 'conflict'>>, leaseMs: number,
): Promise<boolean> {
  const set: Record<string, unknown> = { 'apply.lease_until': new Date(Date.now() + leaseMs).toISOString() };
  for (const [k, v] of Object.entries(progress)) set[`apply.${k}`] = v;
  const r = await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: 'applying', 'apply.owner': jobId },
    { $set: set },
  );
  return r.matchedCount === 1;
}
