import type { Job, Queue, QueueEvents } from 'bullmq';

export type JobWait<R> = { state: 'completed'; value: R | null } | { state: 'failed' } | { state: 'pending' };

/**
 * Wait up to `ms` for a job, then ask the queue where it stands, rather than
 * parse waitUntilFinished's rejection (time-out and failure look alike).
 * `value` is null when the job completed but BullMQ no longer holds it.
 */
export async function waitForJob<D, R>(queue: Queue<D, R>, events: QueueEvents, job: Job<D, R>, ms: number): Promise<JobWait<R>> {
  if (ms > 0) {
    try {
      return { state: 'completed', value: await job.waitUntilFinished(events, ms) };
    } catch {
      // Time-out or failure: the state below tells which.
    }
  }
  const state = await job.getState();
  if (state === 'completed') return { state, value: ((await queue.getJob(job.id!))?.returnvalue as R | undefined) ?? null };
  if (state === 'failed') return { state };
  return { state: 'pending' };
}
