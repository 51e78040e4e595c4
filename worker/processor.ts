// Dispatch a job by the typed job map (shared/queue/stage-jobs.ts): a review or
// apply by its operation, a staging job to its kind (worker/kinds.ts). Domain refusals are answers; anything else is
// a failure BullMQ retries, and after the last attempt the stored answer is
// `job_failed`, so a poll ends instead of waiting forever (a key replay starts
// a new attempt: shared/storage/idempotency-keys.ts).
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from 'mongodb';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import {
  CARRIED_ANSWER_MAX_CHARS,
  type AnyStageJobData,
  type StageAnswer,
  type StageJobReturn,
} from '../shared/queue/stage-jobs.js';
import {
  carriedAnswer,
  joinedOperationId,
  DRY_RUN_RESULT_RETENTION_MS,
  findJobResult,
  saveJobResult,
} from '../shared/storage/job-results.js';
import { crashIf, faultOn, slowIf } from './test-faults.js';
import { applyStagedOperation } from './jobs/staged-apply.js';
import { approveStagedOperation } from './jobs/staged-approve.js';
import { rejectStagedOperation } from './jobs/staged-reject.js';
import type { JobContext, WorkerJobSettings } from './job-context.js';
import type { FiguresRefresher } from './figures-refresher.js';
import { WORKER_KINDS } from './kinds.js';
import type { StageOperationOf } from '../shared/kinds/kind-module.js';
import { kindOfOperation, type StagedKind } from '../shared/kinds/registry.js';

/** The review and apply jobs by operation, a staging job by its kind's worker module (worker/kinds.ts). */
function dispatch(
  db: Db,
  log: Logger,
  jobId: string,
  data: AnyStageJobData,
  settings: WorkerJobSettings,
  writes: Promise<void>[],
  rerun: boolean,
  answer: { stored: boolean },
  figuresLeftStale: (orgId: string) => void,
): Promise<StageAnswer> {
  const base = { db, log, jobId, now: new Date(), settings, writes, rerun, answer, figuresLeftStale };
  if (data.operation === 'staged_operations.approve') return approveStagedOperation({ ...base, data });
  if (data.operation === 'staged_operations.reject') return rejectStagedOperation({ ...base, data });
  if (data.operation === 'staged_operations.apply') return applyStagedOperation({ ...base, data });
  const kind = kindOfOperation(data.operation);
  if (!kind) throw new UnrecoverableError(`no handler for operation ${String(data.operation)}`);
  return stageKind(kind, { ...base, data });
}

/** A staging job, run by its kind's worker module. */
function stageKind<K extends StagedKind>(kind: K, ctx: JobContext<StageOperationOf<K>>): Promise<StageAnswer> {
  return WORKER_KINDS[kind].stage(ctx);
}

export function createStageProcessor(db: Db, logger: Logger, settings: WorkerJobSettings, figures: FiguresRefresher) {
  return async (job: Job<AnyStageJobData, StageJobReturn>): Promise<StageJobReturn> => {
    const data = job.data;
    const jobId = job.id ?? '';
    const log = logger.child({
      request_id: data.request_id,
      job_id: jobId,
      operation: data.operation,
      attempt: job.attemptsMade + 1,
    });
    const writes: Promise<void>[] = [];
    const answered = { stored: false };
    // Organisations whose kept figures the job left stale: refreshed once it answered, whatever its end.
    const staleFigures = new Set<string>();
    const finish = async (answer: StageAnswer): Promise<StageJobReturn> => {
      // A dry run stores nothing: its small answer is BullMQ's return value (docs/reference/http-api.md §6.6);
      // a big one waits an hour in job_results, never in Redis (docs/operating/reliability.md "What Redis holds").
      if (data.dry_run) {
        if (JSON.stringify(answer).length <= CARRIED_ANSWER_MAX_CHARS)
          return { ...jobReturn(jobId, answer, false), answer };
        await saveJobResult(
          db,
          {
            _id: jobId,
            org_id: data.org_id,
            actor: data.actor,
            request_id: data.request_id,
            answer,
            finished_at: new Date().toISOString(),
          },
          undefined,
          DRY_RUN_RESULT_RETENTION_MS,
        );
        return jobReturn(jobId, answer, false);
      }
      // Stored before BullMQ marks the job complete, so a poll never finds it done without an answer;
      // the job's last writes (ctx.writes) go out in the same round trip. A
      // staging that stored its answer with its writes (ctx.answer) stored the first one.
      const [first] = await Promise.all([
        answered.stored
          ? true
          : saveJobResult(db, {
              _id: jobId,
              org_id: data.org_id,
              actor: data.actor,
              request_id: data.request_id,
              answer,
              finished_at: new Date().toISOString(),
            }),
        ...writes.splice(0),
      ]);
      crashIf('stage:crash-before-complete');
      // Another attempt's answer stored first: it stands, and the API reads it.
      return jobReturn(jobId, answer, first === true);
    };
    const started = Date.now();
    // Answered already (an attempt that stored its answer and died before BullMQ heard): the first answer stands.
    // Only a job started before can have one: the first start skips the read (a store round trip per job).
    const rerun = isRerun(job);
    const stored = rerun && !data.dry_run ? await findJobResult(db, data.org_id, jobId, undefined) : null;
    // A new operation's audit event was written beside its answer and may be
    // missing: such a rerun goes on, finds its own operation and records it
    // (worker/operation/staging-job.ts); its answer, stored already, stands.
    if (stored && !(stored.answer.outcome === 'staged' && stored.answer.created)) {
      log.info({ outcome: stored.answer.outcome }, 'job already answered');
      return jobReturn(jobId, stored.answer, true);
    }
    log.info('job started');
    try {
      if (faultOn('stage:fail-for-good')) throw new UnrecoverableError('test fault stage:fail-for-good');
      await slowIf('stage:slow');
      const answer = await dispatch(db, log, jobId, data, settings, writes, rerun, answered, (org) =>
        staleFigures.add(org),
      );
      log.info({ outcome: answer.outcome, ms: Date.now() - started }, 'job finished');
      return await finish(answer);
    } catch (err) {
      // A refusal thrown as an AppError (the operation not found by a review or apply) is an answer, not a failure.
      if (err instanceof AppError) {
        log.info({ code: err.code, ms: Date.now() - started }, 'job refused');
        return await finish({ operation: data.operation, outcome: 'refused', code: err.code, details: err.details });
      }
      const lastAttempt = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.error({ err, ms: Date.now() - started, last_attempt: lastAttempt }, 'job failed');
      if (lastAttempt) {
        await finish({
          operation: data.operation,
          outcome: 'refused',
          code: 'job_failed',
          details: { job_id: jobId },
        }).catch(() => undefined);
      }
      throw err;
    } finally {
      // Once the job has returned its answer: the refresh does not hold up the answer or its last writes.
      for (const org of staleFigures) setImmediate(() => figures.request(org, log));
    }
  };
}

/**
 * Whether this job ran before: a failed attempt (attemptsMade), or a start
 * whose worker died (BullMQ counts every start in attemptsStarted, also
 * for a stalled job moved back to wait).
 */
function isRerun(job: Job): boolean {
  return job.attemptsMade > 0 || job.attemptsStarted > 1;
}

/** BullMQ's small return value: a pointer to the stored answer, and the operation a staged one names. */
function jobReturn(jobId: string, answer: StageAnswer, isStored: boolean): StageJobReturn {
  // A staged answer's operation, or a review or apply step's: the API reads it beside the stored answer.
  const operationId = joinedOperationId(answer);
  const pointer: StageJobReturn =
    operationId === null
      ? { job_result_id: jobId, outcome: answer.outcome }
      : { job_result_id: jobId, outcome: answer.outcome, staged_operation_id: operationId };
  const carried = isStored ? carriedAnswer(answer, CARRIED_ANSWER_MAX_CHARS) : null;
  return carried ? { ...pointer, answer: carried } : pointer;
}
