// Recovery without a caller (docs/operating/reliability.md "Recovery bounds"), run by
// the worker's repeatable `recover-operations` job every RECOVERY_SWEEP_MS:
//  - a transition claim whose job died before writing it (e.g. approved →
//    applying claimed, the journal never stored) is rolled forward once it is
//    CLAIM_WAIT_MS old: the claim holds what its winner would have written;
//  - an `applying` operation whose apply lease lapsed (its job gave up, or
//    its worker is gone) is resumed from its stored journal to a final state,
//    on behalf of the actor who started it;
//  - a `staged` operation without its staging event (its staging job died
//    between inserting it and recording the event, on every attempt) gets
//    it, once it is CLAIM_WAIT_MS old (docs/reference/webhooks.md).
// So an operation with a stored journal ends by itself within
// APPLY_LEASE_MS + RECOVERY_SWEEP_MS (+ the journal's own run).
//
// Every sweep looks at every pending operation, so it reads through the store
// port: on FerretDB 1.x in SQL, the operations by status on their (status)
// btree, and their events and claims by `_id`, a thousand a query.
// why: through FerretDB that was one command per pending operation and pass:
// 3,000 pending operations cost about 5 s and 3 CPU-seconds of the worker per
// sweep, every minute, besides FerretDB's own (docs/operating/reliability.md
// "Recovery bounds").
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { StagedStatus } from '../../shared/domain/staged-transitions.js';
import type { Logger } from '../../shared/logger.js';
import type { AnyStageJobData } from '../../shared/queue/stage-jobs.js';
import { ensureStagedEvent, stagedEventId, transitionClaimId } from '../../shared/storage/audit-events.js';
import { collections, type AuditEventDoc, type StagedOperationDoc } from '../../shared/storage/collections.js';
import type { ApplyJournalState } from '../../shared/storage/staged-apply-state.js';
import {
  canRollForward,
  readApplyJournal,
  rollForward,
  settleOperation,
} from '../../shared/storage/staged-operation-status.js';
import { decodeStoredOperations, findStagedOperation } from '../../shared/storage/staged-operations.js';
import { storeAdapter } from '../../shared/storage/store-adapter.js';
import type { JobContext } from '../job-context.js';
import { finishJournal } from './apply-journal-runner.js';
import { CLAIM_WAIT_MS, claimedAt } from './claims.js';

export interface RecoveryCounts {
  claims_rolled_forward: number;
  applies_resumed: number;
  staged_events_written: number;
}

export async function recoverOperations(db: Db, log: Logger, now: Date): Promise<RecoveryCounts> {
  const staged_events_written = await writeMissingStagedEvents(db, now);
  const claims_rolled_forward = await rollForwardStuckClaims(db, now);
  const applies_resumed = await resumeLapsedApplies(db, log);
  return { claims_rolled_forward, applies_resumed, staged_events_written };
}

/** Every organisation's operations in `status`, only `fields` (and `_id`): one equality read (in SQL on the (status) btree on FerretDB 1.x). */
export async function operationsIn(
  db: Db,
  status: StagedStatus,
  fields: readonly string[],
): Promise<Array<{ _id: string } & Record<string, unknown>>> {
  return (await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).stagedOperations.collectionName,
    equalities: { status },
    fields,
  })) as Array<{ _id: string } & Record<string, unknown>>;
}

/** The audit events (claims included) with these `_id`s, through the store port (in SQL a thousand a query on FerretDB 1.x). */
export async function auditEventsById(
  db: Db,
  ids: readonly string[],
  fields: readonly string[] | undefined,
): Promise<AuditEventDoc[]> {
  return (await (
    await storeAdapter(db)
  ).findByIds(collections(db).auditEvents.collectionName, ids, {
    fields,
  })) as AuditEventDoc[];
}

/** Every transition has its event, `staged` too: written here for an operation whose staging job never did. */
async function writeMissingStagedEvents(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - CLAIM_WAIT_MS).toISOString();
  const staged = (await operationsIn(db, 'staged', ['_id', 'created_at'])).filter(
    (op) => (op.created_at as string) <= before,
  );
  const recorded = new Set(
    (
      await auditEventsById(
        db,
        staged.map((op) => stagedEventId(op._id)),
        ['_id'],
      )
    ).map((e) => e._id),
  );
  let written = 0;
  for (const { _id } of staged.filter((op) => !recorded.has(stagedEventId(op._id)))) {
    const stored = await collections(db).stagedOperations.findOne({ _id });
    const op = stored && (await decodeStoredOperations(db, [stored]))[0]!;
    if (op && (await ensureStagedEvent(db, op))) written += 1;
  }
  return written;
}

async function rollForwardStuckClaims(db: Db, now: Date): Promise<number> {
  let rolled = 0;
  for (const status of ['staged', 'approved'] as StagedStatus[]) {
    // Equality on status (indexed, docs/indexes.md); the claims are read by `_id`.
    const pending = await operationsIn(db, status, ['_id', 'round']);
    // Each operation's claim of its own round (docs/design/staged-lifecycle.md "Apply checks the policy again").
    const claims = await auditEventsById(
      db,
      pending.map((op) => transitionClaimId(op._id, status, (op as { round?: number }).round ?? 0)),
      undefined,
    );
    for (const claim of claims) {
      if (claimedAt(claim) + CLAIM_WAIT_MS > now.getTime() || !canRollForward(claim)) continue;
      await rollForward(db, claim.org_id, claim.staged_operation_id, claim);
      const after = await findStagedOperation(db, claim.org_id, claim.staged_operation_id);
      if (after) await settleOperation(db, after);
      rolled += 1;
    }
  }
  return rolled;
}

async function resumeLapsedApplies(db: Db, log: Logger): Promise<number> {
  // Ids first: nearly always none, and the operations' documents are read only for those there are.
  const ids = (await operationsIn(db, 'applying', ['_id'])).map((op) => op._id);
  if (ids.length === 0) return 0;
  const applying = await decodeStoredOperations(
    db,
    await collections(db).stagedOperations.find({ status: 'applying' }).toArray(),
  );
  let resumed = 0;
  for (const op of applying) {
    // The lease lives in the journal's latest step (shared/storage/staged-operation-status.ts), not on the operation.
    const journal = op.apply ? await readApplyJournal(db, op) : null;
    if (!journal || journal.lease_until >= new Date().toISOString()) continue;
    const ctx = recoveryContext(db, log, op, journal);
    try {
      // No wait: a lease someone else just took is theirs to finish.
      const after = await finishJournal(ctx, op._id, 0);
      if (after.status !== 'applying') resumed += 1;
      ctx.log.info(
        { staged_operation_id: op._id, status: after.status },
        'recovery sweep resumed an apply whose lease lapsed',
      );
    } catch (err) {
      ctx.log.warn(
        { err, staged_operation_id: op._id },
        'recovery sweep could not resume the apply; the next sweep tries again',
      );
    }
  }
  return resumed;
}

/** The apply's own job is gone: the sweep runs its journal as that apply, under a claim identity of its own. */
function recoveryContext(db: Db, log: Logger, op: StagedOperationDoc, journal: ApplyJournalState): JobContext {
  const jobId = `recovery_${randomUUID()}`;
  const data: AnyStageJobData = {
    operation: 'staged_operations.apply',
    request_id: journal.request_id,
    org_id: op.org_id,
    actor: journal.started_by,
    requested_at: new Date().toISOString(),
    idempotency_key: null,
    may_review: true,
    input: { staged_operation_id: op._id, can_approve: true },
  };
  return {
    db,
    log: log.child({ request_id: journal.request_id, job_id: jobId }),
    jobId,
    data,
    now: new Date(),
    rerun: false,
    settings: { stagedTtlMs: 0 },
    writes: [],
  };
}
