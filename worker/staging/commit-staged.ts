// Writing a staged operation (DESIGN §6): take the scope locks, then insert
// the operation, then record the transition. The operation id is derived from
// the job id, so a job retried after a crash finds its own locks and its own
// operation instead of creating a second one.
import { AppError } from '../../shared/errors.js';
import type { Precondition } from '../../shared/domain/books.js';
import { pendingDecision, type ScopeClaim } from '../../shared/domain/scope.js';
import type { Warning } from '../../shared/envelope.js';
import { derivedId } from '../../shared/ids.js';
import type { JobOutcome } from '../../shared/queue/stage-jobs.js';
import { recordTransition } from '../../shared/storage/audit-events.js';
import { acquireLocks, liveHolders, lockKeys } from '../../shared/storage/scope-locks.js';
import {
  findStagedOperation, insertStagedOperation, STAGED_TTL_MS, toView, type StagedKind, type StagedOperationDoc,
} from '../../shared/storage/staged-operations.js';
import type { JobContext } from '../job-context.js';

export interface StageCandidate {
  kind: StagedKind;
  claim: ScopeClaim;
  plan: unknown;
  plan_hash: string;
  preconditions: Precondition[];
  warnings: Warning[];
  /** Fields of the operation's result beside the staged operation's own (e.g. a repair's `blockers: []`). */
  extraData?: Record<string, unknown>;
}

/** A domain decision to stage: a new plan, or the very same plan already pending. */
export type StageDecision =
  | { outcome: 'existing'; staged_operation_id: string }
  | (Omit<StageCandidate, 'kind' | 'warnings' | 'extraData'> & { outcome: 'staged' });

/** Answer a decision: the pending operation (200) or a newly written one (201). */
export async function answerDecision(
  ctx: JobContext, kind: StagedKind, decision: StageDecision, options: { warnings?: Warning[]; extraData?: Record<string, unknown> } = {},
): Promise<JobOutcome> {
  if (decision.outcome === 'existing') return existingOutcome(ctx, decision.staged_operation_id, options.extraData);
  const { outcome: _outcome, ...staged } = decision;
  return commitStaged(ctx, { kind, ...staged, warnings: options.warnings ?? [], extraData: options.extraData });
}

export function operationIdFor(ctx: JobContext): string {
  return derivedId('stg', `${ctx.data.org_id}:${ctx.jobId}`);
}

const LOCK_ATTEMPTS = 3;

export async function commitStaged(ctx: JobContext, candidate: StageCandidate): Promise<JobOutcome> {
  const { db, data, now } = ctx;
  const operationId = operationIdFor(ctx);
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt += 1) {
    if (await acquireLocks(db, data.org_id, candidate.claim, operationId, candidate.plan_hash, now)) {
      const doc = await insertStagedOperation(db, newOperation(ctx, operationId, candidate));
      await recordTransition(db, { org_id: data.org_id, at: doc.created_at, actor: data.actor, request_id: data.request_id, staged_operation_id: doc._id, from: null, to: 'staged' });
      ctx.log.info({ staged_operation_id: doc._id, kind: doc.kind }, 'staged operation written');
      return stagedOutcome(data.operation, doc, 201, candidate);
    }
    const holders = await liveHolders(db, data.org_id, lockKeys(data.org_id, candidate.claim), now, operationId);
    // Every holder was dead (and is now cleared): try again.
    if (holders.length === 0) continue;
    const decision = pendingDecision(holders, { scope_key: candidate.claim.scope_key, plan_hash: candidate.plan_hash });
    if (!decision.ok) throw decision.error;
    return existingOutcome(ctx, decision.value.staged_operation_id, candidate.extraData);
  }
  throw new AppError('pending_operation', { details: { staged_operation_ids: [] }, message: 'The scope is contended; retry shortly.' });
}

/** The same plan already pending for the same scope: answer that operation, 200, create nothing. */
export async function existingOutcome(ctx: JobContext, operationId: string, extraData?: Record<string, unknown>): Promise<JobOutcome> {
  const doc = await findStagedOperation(ctx.db, ctx.data.org_id, operationId);
  if (!doc) throw new AppError('pending_operation', { details: { staged_operation_ids: [operationId] } });
  const outcome = stagedOutcome(ctx.data.operation, doc, 200, { warnings: doc.warnings, extraData });
  outcome.warnings = [
    { code: 'already_staged', message: `The same plan is already pending as ${doc._id}; no new operation was created.`, details: { staged_operation_id: doc._id } },
    ...(outcome.warnings ?? []),
  ];
  return outcome;
}

function newOperation(ctx: JobContext, id: string, candidate: StageCandidate): StagedOperationDoc {
  const { data, now } = ctx;
  const createdAt = now.toISOString();
  return {
    _id: id,
    org_id: data.org_id,
    kind: candidate.kind,
    status: 'staged',
    created_by: data.actor,
    created_at: createdAt,
    expires_at: new Date(now.getTime() + (ctx.settings?.stagedTtlMs ?? STAGED_TTL_MS)).toISOString(),
    request_id: data.request_id,
    idempotency_key: data.idempotency_key,
    scope_key: candidate.claim.scope_key,
    input: data.input,
    plan: candidate.plan,
    plan_hash: candidate.plan_hash,
    preconditions: candidate.preconditions,
    warnings: candidate.warnings,
    history: [{ at: createdAt, actor: data.actor, from: null, to: 'staged', note: null }],
  };
}

function stagedOutcome(operation: string, doc: StagedOperationDoc, httpStatus: number, candidate: Pick<StageCandidate, 'warnings' | 'extraData'>): JobOutcome {
  const view = toView(doc);
  return {
    http_status: httpStatus,
    operation,
    location: `/api/v1/cli/staged-operations/${doc._id}`,
    data: {
      outcome: 'staged',
      staged_operation_id: view.staged_operation_id,
      status: view.status,
      expires_at: view.expires_at,
      ...candidate.extraData,
      plan: view.plan,
      plan_hash: view.plan_hash,
    },
    warnings: candidate.warnings,
  };
}
