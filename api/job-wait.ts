import type { EventEmitter } from 'node:events';
import type { Job, Queue, QueueEvents } from 'bullmq';
import { REDIS_DEADLINE_MS, within } from '../shared/dependency-errors.js';

export type JobWait<R> = { state: 'completed'; value: R | null } | { state: 'failed' } | { state: 'pending' };

/**
 * Wait up to `ms` for a job, then ask the queue where it stands, rather than
 * parse waitUntilFinished's rejection (time-out and failure look alike).
 * `value` is null when the job completed but BullMQ no longer holds it.
 * Every Redis read is bounded (REDIS_DEADLINE_MS): a stalled Redis rejects
 * with a Redis-unreachable error instead of holding the request.
 */
export async function waitForJob<D, R>(
  queue: Queue<D, R>,
  events: QueueEvents,
  job: Job<D, R>,
  ms: number,
): Promise<JobWait<R>> {
  if (ms > 0) {
    try {
      return {
        state: 'completed',
        value: await within(job.waitUntilFinished(events, ms), ms + REDIS_DEADLINE_MS, 'Redis'),
      };
    } catch {
      // Time-out or failure: the state below tells which.
    }
  }
  const state = await within(job.getState(), REDIS_DEADLINE_MS, 'Redis');
  if (state === 'completed')
    return {
      state,
      value: ((await within(queue.getJob(job.id!), REDIS_DEADLINE_MS, 'Redis'))?.returnvalue as R | undefined) ?? null,
    };
  if (state === 'failed') return { state };
  return { state: 'pending' };
}

/**
 * Listen for the end of a job about to be added under a new id, before it
 * is added: a new id cannot have finished before, so unlike
 * waitUntilFinished no Redis read follows the add (one round trip fewer per
 * staging call). `wait` answers like waitForJob; past `ms` it asks the queue.
 */
export function watchNewJob<D, R>(
  queue: Queue<D, R>,
  events: QueueEvents,
  jobId: string,
): { wait(ms: number): Promise<JobWait<R>>; stop(): void } {
  let settle: ((end: { completed: boolean; value?: unknown }) => void) | null = null;
  const ended = new Promise<{ completed: boolean; value?: unknown }>((resolve) => {
    settle = resolve;
  });
  const onCompleted = (args: { returnvalue: unknown }): void => settle?.({ completed: true, value: args.returnvalue });
  const onFailed = (): void => settle?.({ completed: false });
  const completedEvent = `completed:${jobId}`;
  const failedEvent = `failed:${jobId}`;
  // Per-job event names (`completed:<id>`) are what waitUntilFinished listens to; BullMQ's typings know only the plain names.
  const emitter: EventEmitter = events;
  emitter.on(completedEvent, onCompleted);
  emitter.on(failedEvent, onFailed);
  const stop = (): void => {
    emitter.removeListener(completedEvent, onCompleted);
    emitter.removeListener(failedEvent, onFailed);
  };
  const wait = async (ms: number): Promise<JobWait<R>> => {
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), ms);
      });
      const end = ms > 0 ? await Promise.race([ended, timeout]) : null;
      clearTimeout(timer);
      // A failed attempt that BullMQ will retry also emits `failed`: the state below tells.
      if (end?.completed) return { state: 'completed', value: (end.value as R | undefined) ?? null };
      const job = await within(queue.getJob(jobId), REDIS_DEADLINE_MS, 'Redis');
      return job ? waitForJob(queue, events, job, 0) : { state: 'pending' };
    } finally {
      stop();
    }
  };
  return { wait, stop };
}
