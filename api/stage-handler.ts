// The shared path of every staging call (docs/http-api.md, staging rules):
// idempotency key → enqueue → wait up to the time-out → answer the job's
// outcome. A time-out is not a failure: the job goes on, and its result can be
// fetched by job id (202 + Location) or by retrying with the same key.
import { createHash, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { Queue, QueueEvents } from 'bullmq';
import type { Db } from 'mongodb';
import { planHash } from '../shared/domain/plan-hash.js';
import { AppError } from '../shared/errors.js';
import { STAGE_JOB_OPTIONS, type AnyStageJobData, type StageAnswer, type StageJobData, type StageJobInputs, type StageOperation } from '../shared/queue/stage-jobs.js';
import { claimKey, idempotencyRecordId } from '../shared/storage/idempotency-keys.js';
import { findJobResult } from '../shared/storage/job-results.js';
import { locals } from './context.js';
import { waitForJob } from './job-wait.js';
import { pendingToHttp, send, stageAnswerToHttp } from './outcome.js';
import { parseIdempotencyKey, parsePreferWait } from './request-headers.js';

export interface StageDeps {
  db: Db;
  queue: Queue<AnyStageJobData, StageAnswer>;
  queueEvents: QueueEvents;
  stageWaitMs: number;
  stageWaitMaxMs: number;
}

export async function runStage<Op extends StageOperation>(deps: StageDeps, res: Response, operation: Op, input: StageJobInputs[Op]): Promise<void> {
  const req = res.req;
  const l = locals(res);
  const auth = l.auth;
  if (!auth) throw new AppError('unauthenticated');
  const key = parseIdempotencyKey(req.get('idempotency-key'));
  const wait = parsePreferWait(req.get('prefer'), deps.stageWaitMs, deps.stageWaitMaxMs);
  if (wait.applied) res.setHeader('Preference-Applied', `wait=${Math.round(wait.ms / 1000)}`);

  let jobId = `job_${randomUUID()}`;
  let requestId = l.requestId;
  let replay = false;
  if (key !== null) {
    // One job per key: a retried request can never enqueue a second one.
    jobId = `job_${createHash('sha256').update(`${auth.org_id}\n${auth.actor}\n${key}`).digest('hex').slice(0, 32)}`;
    const requestHash = planHash({ operation, input });
    const claim = await claimKey(deps.db, {
      _id: idempotencyRecordId(auth.org_id, auth.actor, key), org_id: auth.org_id, actor: auth.actor,
      request_hash: requestHash, operation, job_id: jobId, request_id: l.requestId, created_at: new Date().toISOString(),
    });
    if (!claim.claimed) {
      if (claim.existing.request_hash !== requestHash) {
        throw new AppError('idempotency_key_reused', { details: { original_request_id: claim.existing.request_id } });
      }
      replay = true;
      requestId = claim.existing.request_id;
    }
  }

  let answer = replay ? (await findJobResult(deps.db, auth.org_id, jobId))?.answer ?? null : null;
  if (!answer) {
    const data: StageJobData<Op> = {
      operation, request_id: requestId, org_id: auth.org_id, actor: auth.actor,
      requested_at: new Date().toISOString(), idempotency_key: key, input,
    };
    // With an existing job id, BullMQ keeps the job it has: adding again is how a
    // replay makes sure the first request's job exists even if that request died.
    // TypeScript cannot see that one operation's data is a member of the union the queue holds.
    await deps.queue.add(operation, data as AnyStageJobData, { ...STAGE_JOB_OPTIONS, jobId });
    answer = await waitForAnswer(deps, auth.org_id, jobId, wait.ms);
  }
  if (!answer) {
    if (replay) throw new AppError('request_in_progress', { details: { job_id: jobId } });
    send(res, pendingToHttp(operation, requestId, jobId));
    return;
  }
  if (replay) res.setHeader('Idempotent-Replayed', 'true');
  send(res, stageAnswerToHttp(answer, requestId));
}

/** The job's answer if it finishes within `ms`; null while it is still pending. */
export async function waitForAnswer(deps: StageDeps, orgId: string, jobId: string, ms: number): Promise<StageAnswer | null> {
  const job = await deps.queue.getJob(jobId);
  if (!job) return (await findJobResult(deps.db, orgId, jobId))?.answer ?? null;
  const waited = await waitForJob(deps.queue, deps.queueEvents, job, ms);
  if (waited.state === 'pending') return null;
  if (waited.state === 'completed' && waited.value) return waited.value;
  // BullMQ let the finished job go, or it failed: the worker stored its answer (job_results).
  const stored = await findJobResult(deps.db, orgId, jobId);
  if (stored) return stored.answer;
  if (waited.state === 'completed') return null;
  throw new AppError('internal', { details: { job_id: jobId } });
}
