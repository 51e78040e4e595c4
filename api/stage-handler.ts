// The shared path of every staging call: enqueue the job, wait for it up to
// the time-out, answer its outcome. A time-out is not a failure: the job goes
// on and its result can be fetched by job id (202 + Location).
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { Queue, QueueEvents } from 'bullmq';
import { errorEnvelope, successEnvelope } from '../shared/envelope.js';
import { AppError } from '../shared/errors.js';
import { STAGE_JOB_OPTIONS, type JobOutcome, type StageJobData, type StageOperation } from '../shared/queue/stage-jobs.js';
import { locals } from './context.js';

export interface StageDeps {
  queue: Queue<StageJobData, JobOutcome>;
  queueEvents: QueueEvents;
  stageWaitMs: number;
}

export async function runStage(deps: StageDeps, res: Response, operation: StageOperation, input: Record<string, unknown>): Promise<void> {
  const l = locals(res);
  const auth = l.auth;
  if (!auth) throw new AppError('unauthenticated');
  const data: StageJobData = {
    operation,
    request_id: l.requestId,
    org_id: auth.org_id,
    actor: auth.actor,
    requested_at: new Date().toISOString(),
    idempotency_key: null,
    input,
  };
  const job = await deps.queue.add(operation, data, { ...STAGE_JOB_OPTIONS, jobId: `job_${randomUUID()}` });
  let outcome: JobOutcome | null = null;
  try {
    outcome = await job.waitUntilFinished(deps.queueEvents, deps.stageWaitMs);
  } catch {
    // Time-out or failure: ask the queue which, rather than parse the message.
    const state = await job.getState();
    if (state === 'completed') outcome = (await deps.queue.getJob(job.id!))?.returnvalue ?? null;
    else if (state === 'failed') throw new AppError('internal', { details: { job_id: job.id } });
  }
  if (!outcome) {
    res.status(202).setHeader('Location', `/api/v1/cli/jobs/${job.id}`);
    res.json(successEnvelope(operation, l.requestId, { outcome: 'pending', job_id: job.id }));
    return;
  }
  sendOutcome(res, outcome);
}

export function sendOutcome(res: Response, outcome: JobOutcome): void {
  const l = locals(res);
  if (outcome.location) res.setHeader('Location', outcome.location);
  res.status(outcome.http_status);
  if (outcome.error) res.json(errorEnvelope(outcome.operation, l.requestId, outcome.error));
  else res.json(successEnvelope(outcome.operation, l.requestId, outcome.data, outcome.warnings ?? []));
}
