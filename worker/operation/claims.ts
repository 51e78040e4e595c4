// The transition claims of a staged operation, as the worker uses them
// (docs/design/staged-lifecycle.md; storage: transitionStatus in
// shared/storage/staged-operation-status.ts is the one function that writes a
// claim). A job's claim is its own by its server-made id (the BullMQ job id);
// a job that lost a claim reads what the winner left, and writes it from the
// claim when the winner died before it could.
import type { Db } from 'mongodb';
import type { StagedStatus } from '../../shared/domain/staged-transitions.js';
import type { AuditEventDoc, StagedOperationDoc } from '../../shared/storage/collections.js';
import {
  canRollForward,
  rollForward,
  settleOperation,
  transitionStatus,
  type ClaimedItem,
} from '../../shared/storage/staged-operation-status.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import type { JobContext } from '../job-context.js';

/** Expire an operation found past its expiry (by a job or the sweep); whoever wins the race, it ends expired. */
export async function expireOperation(
  db: Db,
  op: StagedOperationDoc,
  from: StagedStatus,
  now: Date,
  by: { request_id: string; claim_id: string },
): Promise<StagedOperationDoc> {
  const moved = await transitionStatus(db, op.org_id, op._id, from, {
    at: now.toISOString(),
    actor: 'system',
    from,
    to: 'expired',
    note: `expired at ${op.expires_at}`,
    ...by,
  });
  const after = moved.won
    ? ((await findStagedOperation(db, op.org_id, op._id)) ?? op)
    : await afterLostClaim(db, op, moved.claim);
  await settleOperation(db, after);
  return after;
}

/**
 * How long after its claim the winner of a transition has to write it
 * before others roll the claim forward (docs/operating/reliability.md "Recovery
 * bounds"). The winner writes right after its claim, in milliseconds.
 */
export const CLAIM_WAIT_MS = 5_000;

/** When a claim was made (claims made before `claimed_at` was kept: their job's start). */
export const claimedAt = (claim: AuditEventDoc): number => Date.parse(claim.claimed_at ?? claim.at);

/**
 * The operation as the winner of a transition leaves it. The winner writes
 * right after its claim; a claim still unwritten CLAIM_WAIT_MS after it was
 * made (its job died in between) is written here, from the claim, which
 * holds everything its winner would have set: so the answer is always a
 * status the operation really has, and an old claim costs no wait.
 */
export async function afterLostClaim(
  db: Db,
  op: StagedOperationDoc,
  claim: AuditEventDoc,
): Promise<StagedOperationDoc> {
  const until = claimedAt(claim) + CLAIM_WAIT_MS;
  for (;;) {
    const now = (await findStagedOperation(db, op.org_id, op._id)) ?? op;
    // Moved on, or a claim of an earlier round (apply sent it back to `staged` since): never rolled forward.
    if (now.status !== claim.from || (now.round ?? 0) !== (claim.round ?? 0)) return now;
    if (Date.now() >= until) {
      if (!canRollForward(claim)) return { ...now, status: claim.to as StagedStatus };
      await rollForward(db, op.org_id, op._id, claim);
      const after = (await findStagedOperation(db, op.org_id, op._id)) ?? now;
      await settleOperation(db, after);
      return after;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The history item (and claim) of a transition this job makes: the claim is the job's, by its server-made id. */
export function historyItem(ctx: JobContext, from: StagedStatus, to: StagedStatus, note: string | null): ClaimedItem {
  return {
    at: ctx.now.toISOString(),
    actor: ctx.data.actor,
    from,
    to,
    note,
    request_id: ctx.data.request_id,
    claim_id: ctx.jobId,
  };
}
