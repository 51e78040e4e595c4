// Approve and reject (docs/design/staged-lifecycle.md): decide (pure) → compare-and-
// set → settle (audit, locks). A job that loses a race re-reads the
// operation and decides again, so it answers the recorded state.
import type { Db } from 'mongodb';
import { decideTransition, type LifecycleAction, type StagedStatus } from '../../shared/domain/staged-transitions.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import { findOrg } from '../../shared/storage/books-read.js';
import type { AuditEventDoc } from '../../shared/storage/collections.js';
import { settleOperation, transitionStatus } from '../../shared/storage/staged-operation-status.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import { type HistoryItem, type StagedOperationDoc } from '../../shared/storage/collections.js';
import type { JobContext } from '../job-context.js';
import { lifecycleInput, loadVisibleOperation, madeByThisRequest, operationOutcome, reloadOperation } from './operation-access.js';

/** Enough for any race: each lost compare-and-set means the status moved on, and there are few statuses. */
const DECIDE_ATTEMPTS = 5;

export async function runReviewTransition(ctx: JobContext, action: Exclude<LifecycleAction, 'apply' | 'expire'>, target: StagedStatus): Promise<StageAnswer> {
  let op = await loadVisibleOperation(ctx);
  const org = await findOrg(ctx.db, ctx.data.org_id);
  const note = lifecycleInput(ctx).note ?? null;
  for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt += 1) {
    if (madeByThisRequest(ctx, op, target)) {
      await settleOperation(ctx.db, op);
      return operationOutcome(ctx, op);
    }
    const decision = decideTransition(
      { staged_operation_id: op._id, status: op.status, created_by: op.created_by, expires_at: op.expires_at },
      { action, actor: ctx.data.actor, require_distinct_approver: org?.require_distinct_approver ?? true, now: ctx.now.toISOString() },
    );
    if (decision.kind === 'refuse') throw decision.error;
    if (decision.kind === 'expire_first') {
      op = await expireOperation(ctx.db, op, decision.from, ctx.now, ctx.data.request_id);
      throw decision.then;
    }
    if (decision.kind !== 'transition') throw new Error(`unexpected decision ${decision.kind} for ${action}`);
    const moved = await transitionStatus(ctx.db, ctx.data.org_id, op._id, decision.from, historyItem(ctx, decision.from, decision.to, note));
    if (!moved.won) {
      // Lost the race: decide again on the state the winner leaves.
      op = await afterLostClaim(ctx.db, op, moved.claim);
      continue;
    }
    op = await reloadOperation(ctx, op._id);
    await settleOperation(ctx.db, op);
    ctx.log.info({ staged_operation_id: op._id, from: decision.from, to: decision.to }, 'staged operation transition');
    return operationOutcome(ctx, op);
  }
  throw new Error(`staged operation ${op._id} kept changing under ${action}`);
}

/** Expire an operation found past its expiry (by a job or the sweep); whoever wins the race, it ends expired. */
export async function expireOperation(db: Db, op: StagedOperationDoc, from: StagedStatus, now: Date, requestId: string): Promise<StagedOperationDoc> {
  const moved = await transitionStatus(db, op.org_id, op._id, from, {
    at: now.toISOString(), actor: 'system', from, to: 'expired', note: `expired at ${op.expires_at}`, request_id: requestId,
  });
  const after = moved.won ? (await findStagedOperation(db, op.org_id, op._id)) ?? op : await afterLostClaim(db, op, moved.claim);
  await settleOperation(db, after);
  return after;
}

/** How long a job that lost a transition waits for the winner to write it. */
const CLAIM_WAIT_MS = 5_000;

/**
 * The operation as the winner of a transition leaves it. The winner writes
 * right after its claim; if it has not (it died in between), the claimed
 * status is the recorded state, and its retried job writes it.
 */
export async function afterLostClaim(db: Db, op: StagedOperationDoc, claim: AuditEventDoc): Promise<StagedOperationDoc> {
  const until = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    const now = (await findStagedOperation(db, op.org_id, op._id)) ?? op;
    if (now.status !== claim.from) return now;
    if (Date.now() > until) return { ...now, status: claim.to as StagedStatus };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function historyItem(ctx: JobContext, from: StagedStatus, to: StagedStatus, note: string | null): HistoryItem & { to: StagedStatus; request_id: string } {
  return { at: ctx.now.toISOString(), actor: ctx.data.actor, from, to, note, request_id: ctx.data.request_id };
}
