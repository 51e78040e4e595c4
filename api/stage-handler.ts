// The shared path of every staging call (docs/reference/http-api.md, staging rules):
// idempotency key → enqueue → wait up to the time-out → answer the job's
// outcome. A time-out is not a failure: the job goes on, and its result can be
// fetched by job id (202 + Location) or by retrying with the same key.
//
// A dry run (`?dry_run=true`, docs/reference/http-api.md §6.6) skips the
// key: its job decides and stores nothing, and its answer comes back as the
// job's return value, or, too big for it, stored for an hour in job_results.
//
// Only final answers are remembered for a key: a retryable answer (409
// pending_operation, 5xx) or a job that failed for good moves the key to a new
// job on the next retry, so the same key can still succeed later.
import type { Response } from 'express';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Db } from 'mongodb';
import { planHash } from '../shared/domain/plan-hash.js';
import { certainlyNotSent, REDIS_DEADLINE_MS, unreachableDependency, within } from '../shared/dependency-errors.js';
import { AppError, ERROR_TABLE } from '../shared/errors.js';
import {
  dryRunJobOptions,
  stageJobOptions,
  type AnyStageJobData,
  type StageAnswer,
  type StageJobData,
  type StageJobInputs,
  type StageJobReturn,
  type StageOperation,
} from '../shared/queue/stage-jobs.js';
import { reserveKey, idempotencyRecordId, moveKeyToNewJob, newJobId } from '../shared/storage/idempotency-keys.js';
import { findJobResult, leanAnswer, type AnswerReading } from '../shared/storage/job-results.js';
import { stagingQuerySchema, type StagingQuery } from '../shared/schemas/staging-query.js';
import { compile } from '../shared/schemas/validator.js';
import { routeOf } from '../shared/contract/routes.js';
import { queryObject } from './query-string.js';
import { locals } from './context.js';
import { waitForJob, watchNewJob, type JobWait } from './job-wait.js';
import { pendingToHttp, send, stageAnswerToHttp } from './outcome.js';
import { parseIdempotencyKey, parsePreferMinimal, parsePreferWait, preferenceApplied } from './request-headers.js';

export interface StageDeps {
  db: Db;
  queue: Queue<AnyStageJobData, StageJobReturn>;
  queueEvents: QueueEvents;
  stageWaitMs: number;
  stageWaitMaxMs: number;
  jobOptions: ReturnType<typeof stageJobOptions>;
}

export { REDIS_DEADLINE_MS };

/** The calls whose answer is the operation a review or apply step left: they honour `Prefer: return=minimal`. */
const LIFECYCLE: ReadonlySet<string> = new Set([
  'staged_operations.approve',
  'staged_operations.reject',
  'staged_operations.apply',
]);

/** Whether an answer is the request's for good: what a key replays. */
export function isFinal(answer: StageAnswer): boolean {
  return answer.outcome !== 'refused' || (!ERROR_TABLE[answer.code].retryable && answer.code !== 'job_failed');
}

const validateStagingQuery = compile<StagingQuery>(stagingQuerySchema, '/query');

/** Staging calls whose route validates a query of its own (with `dry_run` in it) before runStage: a query other than the staging query. */
const ownQuery = (operation: StageOperation): boolean => routeOf(operation).query !== stagingQuerySchema;

/**
 * Whether a staging call is a dry run: every `*.stage` operation takes only
 * `dry_run` (`true`|`false`) in its query; review and apply calls read no query.
 */
function dryRunOf(operation: StageOperation, query: unknown): boolean {
  if (!operation.endsWith('.stage')) return false;
  // Its route checked its richer query already, `dry_run` included (docs/guide/statement-import.md).
  if (ownQuery(operation)) return (query as { dry_run?: unknown }).dry_run === 'true';
  const checked = validateStagingQuery(queryObject(query, []));
  if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
  return checked.value.dry_run === 'true';
}

export async function runStage<Op extends StageOperation>(
  deps: StageDeps,
  res: Response,
  operation: Op,
  input: StageJobInputs[Op],
): Promise<void> {
  const req = res.req;
  const l = locals(res);
  const auth = l.auth;
  if (!auth) throw new AppError('unauthenticated');
  const key = parseIdempotencyKey(req.get('idempotency-key'));
  const wait = parsePreferWait(req.get('prefer'), deps.stageWaitMs, deps.stageWaitMaxMs);
  const dryRun = dryRunOf(operation, req.query);
  // Only a review or apply step answers lean: a staging's plan is what it answers.
  const reading: AnswerReading = { lean: LIFECYCLE.has(operation) && parsePreferMinimal(req.get('prefer')) };
  const applied = preferenceApplied(wait, reading.lean === true);
  if (applied !== null) res.setHeader('Preference-Applied', applied);
  const job = (requestId: string): StageJobData<Op> => ({
    operation,
    request_id: requestId,
    org_id: auth.org_id,
    actor: auth.actor,
    requested_at: new Date().toISOString(),
    idempotency_key: key,
    may_review: auth.scopes.includes('staged:approve'),
    scopes: auth.scopes,
    input,
  });

  if (dryRun) {
    // No key is needed, and one given is neither checked nor recorded: a dry run is safe to repeat.
    await runJob(
      deps,
      res,
      operation,
      { ...job(l.requestId), idempotency_key: null, dry_run: true },
      newJobId(),
      wait.ms,
      false,
      reading,
    );
    return;
  }
  if (key === null) {
    const jobId = newJobId();
    await runJob(deps, res, operation, job(l.requestId), jobId, wait.ms, false, reading);
    return;
  }
  const recordId = idempotencyRecordId(auth.org_id, auth.actor, key);
  const requestHash = planHash({ operation, input });
  const reservation = await reserveKey(
    deps.db,
    {
      _id: recordId,
      org_id: auth.org_id,
      actor: auth.actor,
      request_hash: requestHash,
      operation,
      request_id: l.requestId,
      created_at: new Date().toISOString(),
    },
    new Date(),
  );
  if (reservation.reserved) {
    await runJob(deps, res, operation, job(l.requestId), reservation.record.job_id, wait.ms, false, reading);
    return;
  }
  const existing = reservation.existing;
  if (existing.request_hash !== requestHash) {
    throw new AppError('idempotency_key_reused', { details: { original_request_id: existing.request_id } });
  }
  const stored = await findJobResult(deps.db, auth.org_id, existing.job_id, undefined, reading);
  if (stored && isFinal(stored.answer)) {
    res.setHeader('Idempotent-Replayed', 'true');
    send(res, stageAnswerToHttp(stored.answer, stored.request_id));
    return;
  }
  if (stored || (await failedForGood(deps, existing.job_id))) {
    // The earlier attempt could not finish: this retry is a new attempt under the same key.
    const jobId = await moveKeyToNewJob(deps.db, existing);
    await runJob(deps, res, operation, job(l.requestId), jobId, wait.ms, false, reading);
    return;
  }
  // Still running (or its request died before enqueueing): join the first request's job.
  await runJob(deps, res, operation, job(existing.request_id), existing.job_id, wait.ms, true, reading);
}

async function failedForGood(deps: StageDeps, jobId: string): Promise<boolean> {
  const job = await within(deps.queue.getJob(jobId), REDIS_DEADLINE_MS, 'Redis');
  return job !== undefined && (await within(job.getState(), REDIS_DEADLINE_MS, 'Redis')) === 'failed';
}

/** Enqueue (a no-op when the job exists) and answer within the wait, else 202. */
async function runJob<Op extends StageOperation>(
  deps: StageDeps,
  res: Response,
  operation: Op,
  data: StageJobData<Op>,
  jobId: string,
  waitMs: number,
  replay: boolean,
  reading: AnswerReading,
): Promise<void> {
  // A new job id (every call but a replay joining a running job): listen before adding, so no read follows the add.
  const watch = replay ? null : watchNewJob(deps.queue, deps.queueEvents, jobId);
  let job: Job<AnyStageJobData, StageJobReturn>;
  try {
    // TypeScript cannot see that one operation's data is a member of the union the queue holds.
    const options = data.dry_run ? dryRunJobOptions(deps.jobOptions) : deps.jobOptions;
    job = await within(
      deps.queue.add(operation, data as AnyStageJobData, { ...options, jobId }),
      REDIS_DEADLINE_MS,
      'Redis',
    );
  } catch (err) {
    watch?.stop();
    // The add may have reached Redis (no answer in time, a connection lost mid-command): say so, never "nothing was done".
    // The job id is fixed before the add, so the same request retried converges on this job (docs/operating/reliability.md).
    if (unreachableDependency(err) === 'Redis' && !certainlyNotSent(err)) {
      throw new AppError('outcome_unknown', { details: { dependency: 'Redis', job_id: jobId } });
    }
    throw err;
  }
  let waited: JobWait<StageJobReturn>;
  try {
    waited = watch ? await watch.wait(waitMs) : await waitForJob(deps.queue, deps.queueEvents, job, waitMs);
  } catch (err) {
    // The job is queued for certain; only where it stands is unknown: pending, to be polled.
    if (unreachableDependency(err) !== 'Redis') throw err;
    waited = { state: 'pending' };
  }
  // A dry run's answer is its return value, or stored when too big for it; one that failed for good has none.
  const answer = data.dry_run
    ? await dryRunAnswer(deps, data, jobId, waited)
    : await storedAnswer(deps, data.org_id, jobId, waited, replay, reading);
  if (!answer) {
    send(res, pendingToHttp(operation, data.request_id, jobId));
    return;
  }
  if (replay) res.setHeader('Idempotent-Replayed', 'true');
  send(res, stageAnswerToHttp(answer, data.request_id));
}

async function dryRunAnswer(
  deps: StageDeps,
  data: StageJobData,
  jobId: string,
  waited: JobWait<StageJobReturn>,
): Promise<StageAnswer | null> {
  if (waited.state === 'completed')
    return waited.value?.answer ?? (await findJobResult(deps.db, data.org_id, jobId))?.answer ?? null;
  if (waited.state === 'failed')
    return { operation: data.operation, outcome: 'refused', code: 'job_failed', details: { job_id: jobId } };
  return null;
}

/**
 * The job's stored answer once it finished; null while it is still pending.
 * Completed or failed: the worker stored the answer (job_results) before
 * BullMQ heard; a small one came with the job's return value. Pending: the job may also be gone from BullMQ (retention)
 * with its answer stored.
 */
async function storedAnswer(
  deps: StageDeps,
  orgId: string,
  jobId: string,
  waited: JobWait<StageJobReturn>,
  replay: boolean,
  reading: AnswerReading,
): Promise<StageAnswer | null> {
  // The job carried its stored answer (a small one, first write won: StageJobReturn): no store read.
  // A replay joining a running job still reads the store.
  if (!replay && waited.state === 'completed' && waited.value?.answer && waited.value.job_result_id === jobId)
    return reading.lean ? leanAnswer(waited.value.answer) : waited.value.answer;
  // A lean step answer needs no operation: its megabytes of plan are not read for nothing.
  const hint =
    waited.state === 'completed' && !(reading.lean && waited.value?.outcome === 'done')
      ? waited.value?.staged_operation_id
      : undefined;
  return (await findJobResult(deps.db, orgId, jobId, hint, reading))?.answer ?? null;
}
