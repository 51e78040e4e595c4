// The shared path of reads that compute in the worker (shared/queue/read-jobs.ts):
// enqueue → wait → the job's result. Unlike staging there is nothing to come
// back for: a read that outlives the wait answers 503 (retryable), and the
// job's deadline makes the worker drop it if it has not started.
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { Queue, QueueEvents } from 'bullmq';
import { REDIS_DEADLINE_MS, unreachableDependency, within } from '../shared/dependency-errors.js';
import { AppError } from '../shared/errors.js';
import {
  READ_JOB_OPTIONS,
  type ReadJobData,
  type ReadJobResult,
  type ReadOperation,
} from '../shared/queue/read-jobs.js';
import { locals } from './context.js';
import { watchNewJob, type JobWait } from './job-wait.js';

export interface ReadDeps {
  readQueue: Queue<ReadJobData, ReadJobResult>;
  readQueueEvents: QueueEvents;
  /** How long a read waits for its job. */
  readWaitMs: number;
  /** HMAC key of list cursors (config CURSOR_SECRET). */
  cursorSecret: string;
}

export async function runRead<Op extends ReadOperation>(
  deps: ReadDeps,
  res: Response,
  operation: Op,
  input: ReadJobData<Op>['input'],
): Promise<ReadJobResult<Op>> {
  const l = locals(res);
  const auth = l.auth;
  if (!auth) throw new AppError('unauthenticated');
  const data: ReadJobData<Op> = {
    operation,
    request_id: l.requestId,
    org_id: auth.org_id,
    actor: auth.actor,
    deadline_at: new Date(Date.now() + deps.readWaitMs).toISOString(),
    input,
  };
  // Bounded as staging is (docs/operating/reliability.md): a stalled Redis answers 503, never holds the request. A read
  // changes nothing in the books, so a read job that was queued after all is harmless (it lapses at its deadline).
  const jobId = `read_${randomUUID()}`;
  // Listen before adding, as a staging does (api/job-wait.ts): a new id cannot have finished, so no Redis read follows the add.
  const watch = watchNewJob(deps.readQueue, deps.readQueueEvents, jobId);
  try {
    await within(deps.readQueue.add(operation, data, { ...READ_JOB_OPTIONS, jobId }), REDIS_DEADLINE_MS, 'Redis');
    return answerOf(jobId, await watch.wait(deps.readWaitMs), deps.readWaitMs);
  } catch (err) {
    watch.stop();
    if (unreachableDependency(err) === 'Redis')
      throw new AppError('dependency_unavailable', { details: { dependency: 'Redis' } });
    throw err;
  }
}

function answerOf<Op extends ReadOperation>(
  jobId: string,
  waited: JobWait<ReadJobResult<Op>>,
  waitedMs: number,
): ReadJobResult<Op> {
  if (waited.state === 'completed' && waited.value) return waited.value;
  if (waited.state === 'failed') throw new AppError('internal', { details: { job_id: jobId } });
  throw new AppError('service_unavailable', { details: { reason: 'read_timeout', waited_ms: waitedMs } });
}
