// Job duration and outcome by kind, counted by the worker from BullMQ's own
// events (docs/operating/metrics.md): the processor stays free of metrics code.
import type { Job, Worker } from 'bullmq';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds: staging jobs take milliseconds to a few seconds; an apply of a large plan longer. */
const DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface JobMetrics {
  /** Count every job `worker` finishes or fails, labelled with `queue`. */
  watch(worker: Worker, queue: string): void;
}

/** The outcome a finished job reports (`staged`, `noop`, `blocked`, `done`, `refused`), else `completed`. */
function outcomeOf(result: unknown): string {
  const outcome = (result as { outcome?: unknown } | null)?.outcome;
  return typeof outcome === 'string' ? outcome : 'completed';
}

function seconds(job: Job): number | null {
  if (!job.processedOn) return null;
  return Math.max(0, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
}

export function createJobMetrics(registry: Registry): JobMetrics {
  const jobs = new Counter({
    name: 'bookstage_jobs_total',
    help: 'Jobs this worker ran to an end, by queue, kind (the operation) and outcome (staged, noop, blocked, done, refused, completed; failed = an attempt threw and BullMQ retries or gives up).',
    labelNames: ['queue', 'kind', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'bookstage_job_duration_seconds',
    help: 'Time from a job attempt starting on this worker to its end, by queue, kind and outcome.',
    labelNames: ['queue', 'kind', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const record = (queue: string, job: Job, outcome: string): void => {
    const labels = { queue, kind: job.name, outcome };
    jobs.inc(labels);
    const s = seconds(job);
    if (s !== null) duration.observe(labels, s);
  };
  return {
    watch(worker, queue) {
      worker.on('completed', (job, result) => record(queue, job, outcomeOf(result)));
      worker.on('failed', (job) => {
        if (job) record(queue, job, 'failed');
      });
    },
  };
}
