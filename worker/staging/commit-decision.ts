// The commit step of every staging job (docs/http-api.md "Pending
// conflicts"): a staged decision takes its scope locks, then inserts the
// operation, then records the transition; every other decision is answered as
// it is. The operation id is derived from the job id, so a job retried after
// a crash finds its own locks and its own operation instead of creating a
// second one.
import type { Decision, StagedDecision } from '../../shared/domain/decision.js';
import { pendingDecision } from '../../shared/domain/scope.js';
import { derivedId } from '../../shared/ids.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import { recordTransition } from '../../shared/storage/audit-events.js';
import type { StagedKind, StagedOperationDoc } from '../../shared/storage/collections.js';
import { acquireLocks, liveHolders, lockKeys } from '../../shared/storage/scope-locks.js';
import { findStagedOperation, insertStagedOperation, STAGED_TTL_MS } from '../../shared/storage/staged-operations.js';
import { warning, type Warning } from '../../shared/warnings.js';
import type { JobContext } from '../job-context.js';

export function operationIdFor(ctx: JobContext): string {
  return derivedId('stg', `${ctx.data.org_id}:${ctx.jobId}`);
}

/** How often a claim is retried when every holder it met turned out dead (and was cleared). */
const LOCK_ATTEMPTS = 3;

export async function commitDecision<Plan>(ctx: JobContext, kind: StagedKind, decision: Decision<Plan>, resultFields: Record<string, unknown>): Promise<StageAnswer> {
  const operation = ctx.data.operation;
  switch (decision.outcome) {
    case 'refused':
      return { operation, outcome: 'refused', code: decision.code, details: decision.details };
    case 'blocked':
      return { operation, outcome: 'blocked', data: { outcome: 'blocked', ...resultFields, plan: null, plan_hash: null }, warnings: decision.warnings };
    case 'noop':
      return { operation, outcome: 'noop', data: { outcome: 'noop', ...resultFields, plan: decision.plan, plan_hash: decision.plan_hash }, warnings: decision.warnings };
    case 'existing':
      return existingAnswer(ctx, decision.staged_operation_id, resultFields);
    case 'staged':
      return stage(ctx, kind, decision, resultFields);
  }
}

async function stage<Plan>(ctx: JobContext, kind: StagedKind, decision: StagedDecision<Plan>, resultFields: Record<string, unknown>): Promise<StageAnswer> {
  const { db, data, now } = ctx;
  const operationId = operationIdFor(ctx);
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt += 1) {
    if (await acquireLocks(db, data.org_id, decision.claim, operationId, decision.plan_hash, now)) {
      const doc = await insertStagedOperation(db, newOperation(ctx, kind, operationId, decision));
      await recordTransition(db, { org_id: data.org_id, at: doc.created_at, actor: data.actor, request_id: data.request_id, staged_operation_id: doc._id, from: null, to: 'staged' });
      ctx.log.info({ staged_operation_id: doc._id, kind: doc.kind }, 'staged operation written');
      return stagedAnswer(ctx, doc, true, resultFields, decision.warnings);
    }
    const holders = await liveHolders(db, data.org_id, lockKeys(data.org_id, decision.claim), now, operationId);
    // Every holder was dead (and is now cleared): try again.
    if (holders.length === 0) continue;
    const gate = pendingDecision(holders, { scope_key: decision.claim.scope_key, plan_hash: decision.plan_hash });
    return commitDecision(ctx, kind, gate, resultFields);
  }
  return { operation: data.operation, outcome: 'refused', code: 'pending_operation', details: { staged_operation_ids: [] } };
}

/** The same plan already pending for the same scope: answer that operation, create nothing. */
async function existingAnswer(ctx: JobContext, operationId: string, resultFields: Record<string, unknown>): Promise<StageAnswer> {
  const doc = await findStagedOperation(ctx.db, ctx.data.org_id, operationId);
  // Gone between the lock read and this one: still a conflict for this attempt; a retry stages.
  if (!doc) return { operation: ctx.data.operation, outcome: 'refused', code: 'pending_operation', details: { staged_operation_ids: [operationId] } };
  const already = warning('already_staged', { staged_operation_id: doc._id });
  return stagedAnswer(ctx, doc, false, resultFields, [already, ...doc.warnings]);
}

function newOperation<Plan>(ctx: JobContext, kind: StagedKind, id: string, decision: StagedDecision<Plan>): StagedOperationDoc {
  const { data, now } = ctx;
  const createdAt = now.toISOString();
  return {
    _id: id,
    org_id: data.org_id,
    kind,
    status: 'staged',
    created_by: data.actor,
    created_at: createdAt,
    expires_at: new Date(now.getTime() + STAGED_TTL_MS).toISOString(),
    request_id: data.request_id,
    idempotency_key: data.idempotency_key,
    scope_key: decision.claim.scope_key,
    input: { ...data.input },
    plan: decision.plan,
    plan_hash: decision.plan_hash,
    preconditions: decision.preconditions,
    warnings: decision.warnings,
    history: [{ at: createdAt, actor: data.actor, from: null, to: 'staged', note: null }],
  };
}

function stagedAnswer(ctx: JobContext, doc: StagedOperationDoc, created: boolean, resultFields: Record<string, unknown>, warnings: Warning[]): StageAnswer {
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
      plan: doc.plan,
      plan_hash: doc.plan_hash,
    },
    warnings,
  };
}
