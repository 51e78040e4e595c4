// The commit step of every staging job (docs/reference/http-api.md §6.3,
// one pending plan per subject): a staged decision takes its plan locks, then inserts the
// operation, then records the transition; every other decision is answered as
// it is. The operation id is derived from the job id, so a job retried after
// a crash finds its own locks and its own operation instead of creating a
// second one. A dry run (docs/reference/http-api.md §6.6) branches here:
// the same decision is answered with its plan, nothing is written and no
// lock is taken; the holders of its keys become a warning.
import type { Decision, StagedDecision } from '../../shared/domain/decision.js';
import type { PlanContext } from '../../shared/domain/plan-context.js';
import { pendingDecision, type PendingHolder } from '../../shared/domain/pending-gate.js';
import { compareIds } from '../../shared/domain/books.js';
import { stagedAmount, stagedSummary } from '../../shared/kinds/registry.js';
import { baseCurrencyOf } from './operation-access.js';
import { derivedId } from '../../shared/ids.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import { recordStaged, stagedEventDoc } from '../../shared/storage/audit-events.js';
import { isFresh, reserveEvent, type Reservation } from '../../shared/storage/events.js';
import { storedJobResult } from '../../shared/storage/job-results.js';
import { storeAdapter } from '../../shared/storage/store-adapter.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';
import { collections, type StagedOperationDoc } from '../../shared/storage/collections.js';
import { takeLocks, liveHolders, liveHoldersAmong, lockDocs, lockKeys } from '../../shared/storage/plan-locks.js';
import {
  findStagedOperation,
  insertStagedOperation,
  stagedOperationInserts,
} from '../../shared/storage/staged-operations.js';
import { warning, type Warning } from '../../shared/warnings.js';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { unattendedActor } from '../../shared/domain/approval-policy.js';
import { stagingApproval } from './staging-approval.js';
import { withApprovals } from '../../shared/storage/approvals.js';
import type { JobContext } from '../job-context.js';
import { crashIf, slowIf, stagingStepFaultsOn } from '../test-faults.js';

export function operationIdFor(ctx: JobContext): string {
  return derivedId('stg', `${ctx.data.org_id}:${ctx.jobId}`);
}

/** How often taking the locks is retried when every holder it met turned out dead (and was cleared). */
const LOCK_ATTEMPTS = 3;

/**
 * The live pending operations holding `keys`, for a kind's pending gate. A
 * dry run's rule must see the plan a staging would make were its keys free:
 * there the holders are kept aside for the warning and the rule sees none.
 */
export async function pendingHolders(ctx: JobContext, keys: string[]): Promise<PendingHolder[]> {
  const holders = await liveHolders(ctx.db, ctx.data.org_id, keys, ctx.now, operationIdFor(ctx));
  if (!ctx.data.dry_run) return holders;
  (ctx.seenHolders ??= []).push(...holders);
  return [];
}

export async function commitDecision<Plan>(
  ctx: JobContext,
  kind: StagedKind,
  decision: Decision<Plan>,
  resultFields: Record<string, unknown>,
): Promise<StageAnswer> {
  const operation = ctx.data.operation;
  if (ctx.data.dry_run) return dryRunAnswer(ctx, kind, decision, resultFields);
  switch (decision.outcome) {
    case 'refused':
      return { operation, outcome: 'refused', code: decision.code, details: decision.details };
    case 'blocked':
      return {
        operation,
        outcome: 'blocked',
        data: { outcome: 'blocked', ...resultFields, plan: null, plan_hash: null },
        warnings: decision.warnings,
      };
    case 'noop':
      return {
        operation,
        outcome: 'noop',
        data: { outcome: 'noop', ...resultFields, plan: decision.plan, plan_hash: decision.plan_hash },
        warnings: decision.warnings,
      };
    case 'existing':
      return existingAnswer(ctx, decision.staged_operation_id, resultFields);
    case 'staged':
      return stage(ctx, kind, decision, resultFields);
  }
}

/**
 * What a staging would answer, as a dry run: refusals as they are; any plan
 * with its hash and summary, and the warning `pending_operation` naming the
 * live holders of its keys (those its rule met, and those its locks would
 * meet). Nothing is written: no operation, no lock, no event.
 */
async function dryRunAnswer<Plan>(
  ctx: JobContext,
  kind: StagedKind,
  decision: Decision<Plan>,
  resultFields: Record<string, unknown>,
): Promise<StageAnswer> {
  const { db, data, now } = ctx;
  const holders = [...(ctx.seenHolders ?? [])];
  let outcome: 'staged' | 'noop' | 'blocked';
  let plan: unknown = null;
  let hash: string | null = null;
  let warnings: Warning[];
  switch (decision.outcome) {
    case 'refused':
      return { operation: data.operation, outcome: 'refused', code: decision.code, details: decision.details };
    case 'blocked':
      ({ outcome, warnings } = decision);
      break;
    case 'noop':
      ({ outcome, plan, plan_hash: hash, warnings } = decision);
      break;
    case 'staged':
      ({ outcome, plan, plan_hash: hash, warnings } = decision);
      holders.push(...(await liveHolders(db, data.org_id, lockKeys(data.org_id, decision.locks), now, undefined)));
      break;
    case 'existing': {
      // A kind that read its holders without pendingHolders met the very same plan pending: that plan is the one.
      const doc = await findStagedOperation(db, data.org_id, decision.staged_operation_id);
      if (!doc)
        return {
          operation: data.operation,
          outcome: 'refused',
          code: 'pending_operation',
          details: { staged_operation_ids: [decision.staged_operation_id] },
        };
      outcome = 'staged';
      plan = doc.plan;
      hash = doc.plan_hash;
      warnings = doc.warnings;
      // That plan's context, read when it was staged.
      resultFields = { ...resultFields, context: doc.context ?? {} };
      holders.push({ staged_operation_id: doc._id, subject_key: doc.scope_key, plan_hash: doc.plan_hash });
      break;
    }
  }
  const ids = [...new Set(holders.map((h) => h.staged_operation_id))].sort(compareIds);
  const all = ids.length > 0 ? [...warnings, warning('pending_operation', { staged_operation_ids: ids })] : warnings;
  const summary = plan === null ? null : stagedSummary(kind, plan);
  const context = (resultFields.context ?? {}) as PlanContext;
  const amount =
    plan === null ? { amount_minor: null, currency: null } : stagedAmount(kind, plan, context, baseCurrencyOf(ctx));
  ctx.log.info({ outcome, holders: ids.length }, 'dry run answered');
  return {
    operation: data.operation,
    outcome: 'dry_run',
    data: { dry_run: true, outcome, ...resultFields, plan, plan_hash: hash, summary, ...amount, warnings: all },
    warnings: all,
  };
}

async function stage<Plan>(
  ctx: JobContext,
  kind: StagedKind,
  decision: StagedDecision<Plan>,
  resultFields: Record<string, unknown>,
): Promise<StageAnswer> {
  const { db, data, now } = ctx;
  const operationId = operationIdFor(ctx);
  // The staging event's sequence is reserved while the locks are taken, not
  // after the operation is written: store round trips off the answer's path
  // (docs/design/performance.md "Round trip"). A take that fails leaves the
  // number unused, a gap the feed allows (docs/reference/webhooks.md).
  const reserved = reserveEvent(db, data.org_id);
  reserved.catch(() => undefined);
  // Live holders of the plan's lock keys answer the call as the lock gate does: the same plan pending, or a conflict.
  const meet = (holders: PendingHolder[]): Promise<StageAnswer> =>
    commitDecision(
      ctx,
      kind,
      pendingDecision(
        holders,
        decision.locks.same_plan_conflicts
          ? null
          : { subject_key: decision.locks.subject_key, plan_hash: decision.plan_hash },
      ),
      resultFields,
    );
  // What approving it takes; the policy's own approval (unattended) is reserved here, before anything is written.
  const approval = await stagingApproval(ctx, kind, operationId, decision.plan, resultFields.context ?? {});
  const together = await stageInOneStatement(ctx, kind, operationId, decision, resultFields, reserved, approval);
  if (together === 'held') {
    // A key of the plan's locks is held and nothing of this one was written: the
    // keys' locks are read in SQL, once, instead of meeting them again
    // through takeLocks (an insert, a read and a clean-up through FerretDB,
    // three store round trips on every call that meets a pending plan).
    // Only dead holders (cleared by the read) or this job's own locks from
    // an earlier attempt leave the take below to run.
    const holders = await liveHolders(db, data.org_id, lockKeys(data.org_id, decision.locks), now, operationId);
    if (holders.length > 0) return meet(holders);
  } else if (together) {
    return together;
  }
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt += 1) {
    const taken = await takeLocks(db, data.org_id, decision.locks, operationId, decision.plan_hash);
    if (taken.acquired) {
      crashIf('stage:crash-after-locks');
      await slowIf('stage:slow-after-locks', 300);
      // Reserved before the operation can be seen: a transition out of `staged` reserves after it, so its event follows this one.
      await reserved;
      const doc = await insertStagedOperation(
        db,
        newOperation(ctx, kind, operationId, decision, (resultFields.context ?? {}) as PlanContext, approval),
      );
      crashIf('stage:crash-after-write');
      return writtenAnswer(ctx, doc, resultFields, reserved);
    }
    // The locks the refused take read: each key is read once per attempt.
    const holders = await liveHoldersAmong(db, data.org_id, taken.locks, now, operationId);
    // Every holder was dead (and is now cleared), or gave its locks back: take them again.
    if (holders.length === 0) continue;
    return meet(holders);
  }
  // Contended on every attempt by holders that came and went: a conflict. Every holder
  // met was dead and is cleared (a live one is answered above), so none is named.
  return {
    operation: data.operation,
    outcome: 'refused',
    code: 'pending_operation',
    details: { staged_operation_ids: [] },
  };
}

/**
 * Where the store port inserts together (FerretDB 1.x), a staging's writes as one SQL statement
 * (docs/indexes.md "Writes in SQL"): its locks, its operation (and body), its
 * staging event and its stored answer, all or none. The order the steps
 * below keep one after the other — locks before the operation, the event
 * and the answer after it — holds trivially when they commit at once, and
 * no crash leaves locks without an operation or an operation without its
 * event. `held` when a unique key refused the statement: a lock is held
 * (or this job's own writes are there, on a rerun). Null when the store
 * declined or the event's reservation went stale; the steps below then run
 * as they do everywhere else, and meet whatever is there.
 */
async function stageInOneStatement<Plan>(
  ctx: JobContext,
  kind: StagedKind,
  operationId: string,
  decision: StagedDecision<Plan>,
  resultFields: Record<string, unknown>,
  reserved: Promise<Reservation>,
  approval: ApprovalState,
): Promise<StageAnswer | 'held' | null> {
  const { db, data } = ctx;
  const store = await storeAdapter(db);
  if (!store.insertsTogether || !ctx.answer || stagingStepFaultsOn()) return null;
  const locks = lockDocs(data.org_id, decision.locks, operationId, decision.plan_hash, new Date().toISOString());
  const reservation = await reserved;
  if (!isFresh(reservation)) return null;
  const doc = newOperation(ctx, kind, operationId, decision, (resultFields.context ?? {}) as PlanContext, approval);
  const answer = stagedAnswer(ctx, doc, true, resultFields, doc.warnings);
  const result = storedJobResult({
    _id: ctx.jobId,
    org_id: data.org_id,
    actor: data.actor,
    request_id: data.request_id,
    answer,
    finished_at: new Date().toISOString(),
  });
  const [outcome] = await Promise.all([
    store.insertTogether([
      { collection: collections(db).planLocks.collectionName, docs: locks },
      ...stagedOperationInserts(doc),
      { collection: 'audit_events', docs: [stagedEventDoc(doc, reservation)] },
      { collection: 'job_results', docs: [result] },
    ]),
    reservation.retired,
  ]);
  // A unique key met: a lock held (or this job's own writes, on a rerun); nothing of this statement was stored.
  if (outcome === 'duplicate') return 'held';
  if (outcome !== 'stored') return null;
  ctx.answer.stored = true;
  ctx.log.info({ staged_operation_id: doc._id, kind: doc.kind, in_one_statement: true }, 'staged operation written');
  return answer;
}

/**
 * The answer for this job's own operation, once it is written: the audit
 * event is recorded here (its id is derived, so a retried job records it
 * once), in the same round trip as the stored answer (ctx.writes). Also how a
 * job retried after a crash between writing the operation and storing its
 * answer finishes without deciding again.
 */
export function writtenAnswer(
  ctx: JobContext,
  doc: StagedOperationDoc,
  resultFields: Record<string, unknown>,
  reserved?: Promise<Reservation>,
): StageAnswer {
  const event = recordStaged(ctx.db, doc, { reserved });
  // Awaited by the processor; never an unhandled rejection meanwhile.
  event.catch(() => undefined);
  ctx.writes.push(event);
  ctx.log.info({ staged_operation_id: doc._id, kind: doc.kind }, 'staged operation written');
  return stagedAnswer(ctx, doc, true, resultFields, doc.warnings);
}

/**
 * The same plan already pending for the same subject: answer that operation,
 * create nothing — to a caller allowed to see it (its creator, or an actor
 * with staged:approve). Anyone else meets a conflict.
 */
async function existingAnswer(
  ctx: JobContext,
  operationId: string,
  resultFields: Record<string, unknown>,
): Promise<StageAnswer> {
  const { data } = ctx;
  const written = await writtenOperation(ctx, operationId);
  // Gone between the lock read and this one, or not the caller's to see: still a conflict for this attempt.
  if (!written || (written.created_by !== data.actor && !data.may_review)) {
    return {
      operation: data.operation,
      outcome: 'refused',
      code: 'pending_operation',
      details: { staged_operation_ids: [operationId] },
    };
  }
  // With the approvals given so far.
  const doc = await withApprovals(ctx.db, written);
  const already = warning('already_staged', { staged_operation_id: doc._id });
  return stagedAnswer(ctx, doc, false, resultFields, [already, ...doc.warnings]);
}

/** How long a job waits for a live holder that has its locks but has not yet written its operation. */
const HOLDER_WRITE_WAIT_MS = 25;
const HOLDER_WRITE_READS = 20;

/**
 * The holder's operation. Locks are taken before the operation is inserted,
 * so an identical request running alongside can meet the locks of an
 * operation a few milliseconds from existing; answering 409 then would make
 * twenty identical parallel requests diverge. The holder is live (its lock is
 * younger than the orphan limit), so its write is close: read again for up to
 * half a second before calling it a conflict.
 */
async function writtenOperation(ctx: JobContext, operationId: string): Promise<StagedOperationDoc | null> {
  for (let read = 1; ; read += 1) {
    const doc = await findStagedOperation(ctx.db, ctx.data.org_id, operationId);
    if (doc || read >= HOLDER_WRITE_READS) return doc;
    await new Promise((resolve) => setTimeout(resolve, HOLDER_WRITE_WAIT_MS));
  }
}

function newOperation<Plan>(
  ctx: JobContext,
  kind: StagedKind,
  id: string,
  decision: StagedDecision<Plan>,
  context: PlanContext,
  approval: ApprovalState,
): StagedOperationDoc {
  const { data, now } = ctx;
  const createdAt = now.toISOString();
  // Approved by the policy itself at staging (docs/design/staged-lifecycle.md "Unattended limits").
  const unattended = approval.remaining === 0;
  return {
    _id: id,
    org_id: data.org_id,
    kind,
    status: unattended ? 'approved' : 'staged',
    created_by: data.actor,
    created_at: createdAt,
    expires_at: new Date(now.getTime() + ctx.settings.stagedTtlMs).toISOString(),
    request_id: data.request_id,
    idempotency_key: data.idempotency_key,
    scope_key: decision.locks.subject_key,
    input: storedInput(data.input),
    plan: decision.plan,
    plan_hash: decision.plan_hash,
    preconditions: decision.preconditions,
    warnings: decision.warnings,
    history: [
      { at: createdAt, actor: data.actor, from: null, to: 'staged', note: null },
      ...(unattended
        ? [
            {
              at: createdAt,
              actor: unattendedActor(approval.policy_version),
              from: 'staged' as const,
              to: 'approved' as const,
              note: 'unattended',
            },
          ]
        : []),
    ],
    // Read at staging time, beside the plan (docs/design/staged-lifecycle.md "Context").
    context,
    approval,
  };
}

function stagedAnswer(
  ctx: JobContext,
  doc: StagedOperationDoc,
  created: boolean,
  resultFields: Record<string, unknown>,
  warnings: Warning[],
): StageAnswer {
  return {
    operation: ctx.data.operation,
    outcome: 'staged',
    created,
    staged_operation_id: doc._id,
    data: {
      outcome: 'staged',
      staged_operation_id: doc._id,
      status: doc.status,
      expires_at: doc.expires_at,
      ...resultFields,
      // The context read when the operation was staged (this job's, or the pending one's it answers).
      context: doc.context ?? {},
      plan: doc.plan,
      plan_hash: doc.plan_hash,
      ...stagedAmount(doc.kind, doc.plan, doc.context ?? {}, baseCurrencyOf(ctx)),
      ...(doc.approval ? { approval: doc.approval } : {}),
    },
    warnings,
  };
}

/**
 * The request as the operation keeps it: a statement import's file is not
 * kept (up to 10 MB; the plan names it by `file_sha256`), only its size
 * (docs/guide/statement-import.md).
 */
function storedInput(input: object): Record<string, unknown> {
  // `content_base64`: the file itself, in a job queued before uploads (shared/storage/statement-uploads.ts).
  const { file, content_base64: content, ...rest } = input as Record<string, unknown>;
  const upload = file as { bytes?: unknown } | undefined;
  if (typeof upload?.bytes === 'number') return { ...rest, file_bytes: upload.bytes };
  return typeof content === 'string' ? { ...rest, file_bytes: Buffer.byteLength(content, 'base64') } : { ...rest };
}
