// POST /staged-operations/{id}/apply as a job (docs/design/staged-lifecycle.md
// "Apply"), on the lifecycle frame (worker/operation/lifecycle-job.ts: load →
// decide (pure) → commit); this file is apply's commit. Only an approved operation is
// applied, once: its preconditions are checked (any version changed → stale,
// nothing written), the journal of writes is computed and stored with the
// compare-and-set approved → applying, then run to the end by
// apply-journal-runner.ts. An apply that already ended answers what it
// recorded.
import { journalDerivedFromPlan, planJournalWithLinks } from '../../shared/domain/apply-journal.js';
import { changedPreconditions, type ChangedPrecondition } from '../../shared/domain/preconditions.js';
import { bankReferenceClashes } from '../../shared/domain/statement-import/apply-check.js';
import type { StatementImportPlan } from '../../shared/domain/statement-import/plan.js';
import { accountTransactionsByReference } from '../../shared/storage/statement-import-read.js';
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
import { crashIf } from '../test-faults.js';
import { APPLY_LEASE_MS, finishJournal } from '../operation/apply-journal-runner.js';
import { historyItem } from '../operation/claims.js';
import { lifecycleJob, refusedAnswer, type Committed } from '../operation/lifecycle-job.js';
import { madeByThisJob, operationOutcome, reloadOperation } from '../operation/operation-access.js';
import { markInboxChanged } from '../operation/apply-journal-runner.js';
import { warning } from '../../shared/warnings.js';

export const applyStagedOperation = lifecycleJob({
  action: 'apply',
  commit: async (ctx, op): Promise<Committed> => {
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
    // An earlier apply applied it: say so (docs/design/staged-lifecycle.md "Apply"). Its inbox version is marked again,
    // in case the worker that applied it died before it could (the overview then shows the resolved group no longer).
    await markInboxChanged(ctx, op);
    return { ...answer, warnings: [...answer.warnings, warning('already_applied', { staged_operation_id: op._id })] };
  },
});

/**
 * approved → stale | failed (nothing written), or approved → applying with
 * the journal stored. False when another job moved the operation first.
 */
async function startApply(ctx: JobContext, op: StagedOperationDoc): Promise<TransitionOutcome> {
  const { db, data } = ctx;
  const { books, versions } = await loadPreconditionBooks(db, data.org_id, op.preconditions);
  const changed = [...changedPreconditions(op.preconditions, versions), ...(await importClashes(ctx, op))];
  if (changed.length > 0) {
    const error = new AppError('stale_plan', { details: { staged_operation_id: op._id, changed } });
    return endWithoutWriting(ctx, op, {
      status: 'stale',
      at: ctx.now.toISOString(),
      by: data.actor,
      error: error.toBody(),
    });
  }
  const journal = planJournalWithLinks(op.kind, op.plan, books, {
    staged_operation_id: op._id,
    org_id: data.org_id,
    actor: data.actor,
    now: ctx.now.toISOString(),
  });
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
  const fromPlan = journalDerivedFromPlan(op.kind);
  const apply: ApplyJournalState = {
    ...links,
    ...(fromPlan ? { writes: [], writes_from_plan: true as const } : { writes: journal.value.writes }),
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
  if (moved.won)
    ctx.log.info({ staged_operation_id: op._id, writes: journal.value.writes.length }, 'apply journal written');
  return moved;
}

/**
 * A statement import is stale when the account meanwhile got a transaction with one of its new transactions' bank references
 * (docs/guide/statement-import.md "Apply"). Only the transactions carrying one of those references are read, not the account.
 */
async function importClashes(ctx: JobContext, op: StagedOperationDoc): Promise<ChangedPrecondition[]> {
  if (op.kind !== 'statement_import') return [];
  const plan = op.plan as StatementImportPlan;
  const references = plan.new_transactions.flatMap((t) => (t.bank_reference === null ? [] : [t.bank_reference]));
  if (references.length === 0) return [];
  return bankReferenceClashes(
    plan,
    await accountTransactionsByReference(ctx.db, ctx.data.org_id, plan.bank_account_id, references),
  );
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
