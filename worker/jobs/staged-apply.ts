// POST /staged-operations/{id}/apply as a job (docs/design/staged-lifecycle.md
// "Apply"), on the lifecycle frame (worker/operation/lifecycle-job.ts: load →
// decide (pure) → commit); this file is apply's commit. Only an approved operation is
// applied, once: its preconditions are checked (any version changed → stale,
// nothing written), the journal of writes is computed and stored with the
// compare-and-set approved → applying, then run to the end by
// apply-journal-runner.ts. An apply that already ended answers what it
// recorded.
import { journalBooks, journalDerivedFromPlan, planJournalWithLinks } from '../../shared/kinds/journals.js';
import { changedPreconditions } from '../../shared/domain/preconditions.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { AppError } from '../../shared/errors.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import { loadPreconditionBooks } from '../../shared/storage/precondition-books.js';
import type { ApplyJournalState, ApplyResult } from '../../shared/storage/staged-apply-state.js';
import {
  settleOperation,
  transitionStatus,
  type TransitionOutcome,
} from '../../shared/storage/staged-operation-status.js';
import type { StagedOperationDoc } from '../../shared/storage/collections.js';
import type { JobContext } from '../job-context.js';
import { WORKER_KINDS } from '../kinds.js';
import { crashIf } from '../test-faults.js';
import { deleteJournalParts, storeJournalParts } from '../../shared/storage/apply-journal-parts.js';
import { APPLY_LEASE_MS, finishJournal } from '../operation/apply-journal-runner.js';
import { historyItem } from '../operation/claims.js';
import { lifecycleJob, refusedAnswer, type Committed } from '../operation/lifecycle-job.js';
import { madeByThisJob, operationOutcome, reloadOperation } from '../operation/operation-access.js';
import { warning } from '../../shared/warnings.js';
import { backToStaged, policyChange } from '../operation/policy-at-apply.js';

export const applyStagedOperation = lifecycleJob({
  action: 'apply',
  commit: async (ctx, op): Promise<Committed> => {
    // The approval policy first: an operation it no longer holds as approved is staged again, nothing written.
    const approval = await policyChange(ctx, op);
    if (approval) {
      const back = await backToStaged(ctx, op, approval);
      if (!back.won) return back;
      const details = { staged_operation_id: op._id, approval };
      return { won: true, answer: refusedAnswer(ctx, { code: 'policy_changed', details }) };
    }
    const started = await startApply(ctx, op);
    crashIf('apply:crash-after-journal');
    if (!started.won) return started;
    // The operation as the applying transition wrote it, when this job wrote it: the journal runs without reading it back.
    return { won: true, answer: await recordedOutcome(ctx, await finishJournal(ctx, op._id, undefined, started.op)) };
  },
  // An apply under way is finished (the same journal); one that ended answers what it recorded.
  resume: async (ctx, op) => {
    if (op.status === 'applying') return recordedOutcome(ctx, await finishJournal(ctx, op._id));
    const answer = await recordedOutcome(ctx, op);
    if (op.status !== 'applied' || madeByThisJob(ctx, op, 'applied') || answer.outcome !== 'done') return answer;
    // An earlier apply applied it: say so (docs/design/staged-lifecycle.md "Apply"). Its kind's after-apply hook runs again
    // (a duplicate resolution marks the inbox's version), in case the worker that applied it died before it could.
    await WORKER_KINDS[op.kind].afterApplied?.(ctx, op);
    return { ...answer, warnings: [...answer.warnings, warning('already_applied', { staged_operation_id: op._id })] };
  },
});

/**
 * approved → stale | failed (nothing written), or approved → applying with
 * the journal stored. False when another job moved the operation first.
 */
async function startApply(ctx: JobContext, op: StagedOperationDoc): Promise<TransitionOutcome> {
  const { db, data } = ctx;
  const { books, versions } = await loadPreconditionBooks(db, data.org_id, op.preconditions, journalBooks(op.kind));
  const hooks = WORKER_KINDS[op.kind];
  const changed = [
    ...changedPreconditions(op.preconditions, versions),
    ...((await hooks.applyClashes?.(ctx, op)) ?? []),
  ];
  // The lock date as it is now: it may have moved since staging (docs/design/staged-lifecycle.md "Closed periods").
  const locked = hooks.periodLocked
    ? hooks.periodLocked(op.plan, (await findOrg(db, data.org_id))?.lock_date ?? null)
    : null;
  if (changed.length > 0 || locked !== null) {
    const error = new AppError('stale_plan', { details: { staged_operation_id: op._id, changed, ...locked } });
    return endWithoutWriting(ctx, op, {
      status: 'stale',
      at: ctx.now.toISOString(),
      by: data.actor,
      error: error.toBody(),
    });
  }
  // The kind's own refusal (a period close while operations that would book in its period are pending): answered
  // as is, nothing written, the operation still `approved`, so the same apply may succeed later.
  const refusal = await hooks.applyRefusal?.(ctx, op);
  if (refusal) throw new AppError(refusal.code, { details: refusal.details });
  const journal = planJournalWithLinks(
    op.kind,
    op.plan,
    { ...books, ...(await hooks.applyBooks?.(ctx, op)) },
    {
      staged_operation_id: op._id,
      org_id: data.org_id,
      actor: data.actor,
      now: ctx.now.toISOString(),
    },
  );
  if (!journal.ok) {
    const error = new AppError('apply_failed', { details: { staged_operation_id: op._id, ...journal.error.details } });
    return endWithoutWriting(ctx, op, {
      status: 'failed',
      at: ctx.now.toISOString(),
      by: data.actor,
      error: error.toBody(),
    });
  }
  // A repair's moved and new amounts: which link each goes to, for the result (old link id → new link id).
  const links = journal.value.links ? { links: journal.value.links } : {};
  // A journal that is a function of the plan is not stored again: the plan is (docs/design/staged-lifecycle.md "Crash safety").
  // The others' writes go to parts of their own before the transition names them (docs/design/staged-lifecycle.md "How an operation is stored").
  const fromPlan = journalDerivedFromPlan(op.kind);
  const parts = fromPlan ? null : await storeJournalParts(db, data.org_id, op._id, journal.value.writes);
  const apply: ApplyJournalState = {
    ...links,
    ...(parts ? { writes: [], ...parts } : { writes: [], writes_from_plan: true as const }),
    done: 0,
    phase: 'forward',
    undone: 0,
    conflict: null,
    owner: ctx.jobId,
    lease_until: new Date(Date.now() + APPLY_LEASE_MS).toISOString(),
    started_at: ctx.now.toISOString(),
    started_by: data.actor,
    request_id: data.request_id,
  };
  const moved = await transitionStatus(
    db,
    data.org_id,
    op._id,
    'approved',
    historyItem(ctx, 'approved', 'applying', null),
    { apply },
    { afterClaim: () => crashIf('apply:crash-after-claim'), loaded: op },
  );
  if (!moved.won || !moved.op) {
    // Another start won (its own journal stands), or this one's write was made by an earlier attempt: these parts are never read.
    if (parts) await deleteJournalParts(db, parts);
    return moved;
  }
  ctx.log.info({ staged_operation_id: op._id, writes: journal.value.writes.length }, 'apply journal written');
  // The journal runs from memory: its parts are read only by a job that takes it over.
  if (parts && moved.op.apply) moved.op.apply = { ...moved.op.apply, writes: journal.value.writes };
  return moved;
}

async function endWithoutWriting(
  ctx: JobContext,
  op: StagedOperationDoc,
  result: ApplyResult,
): Promise<TransitionOutcome> {
  const moved = await transitionStatus(
    ctx.db,
    ctx.data.org_id,
    op._id,
    'approved',
    historyItem(ctx, 'approved', result.status, null),
    { result },
    { loaded: op },
  );
  if (moved.won) {
    await settleOperation(ctx.db, moved.op ?? (await reloadOperation(ctx, op._id)));
    ctx.log.info({ staged_operation_id: op._id, status: result.status }, 'apply ended without writing');
  }
  return moved;
}

/** An operation whose apply ended: 200 when applied, else the error it recorded (stale_plan, apply_failed). */
async function recordedOutcome(ctx: JobContext, op: StagedOperationDoc): Promise<StageAnswer> {
  await settleOperation(ctx.db, op);
  if (op.status === 'applied') return operationOutcome(ctx, op);
  if ((op.status === 'failed' || op.status === 'stale') && op.result?.error) return refusedAnswer(ctx, op.result.error);
  return refusedAnswer(ctx, {
    code: 'invalid_transition',
    details: { staged_operation_id: op._id, status: op.status, action: 'apply' },
  });
}
