// Gauges read when /metrics is scraped (docs/operating/metrics.md): queue depth by state
// from Redis, pending plan locks from MongoDB. Each read is bounded, so a
// scrape during an outage still answers; the gauge then shows no number
// (no queue series; NaN plan locks) rather than the last value, or 0, as if it
// were current.
import type { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import { Gauge, type Registry } from 'prom-client';
import { within } from '../../shared/dependency-errors.js';
import { collections } from '../../shared/storage/collections.js';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** Well under a Prometheus scrape timeout (10 s by default), and patient with a busy FerretDB. */
const READ_MS = 2000;

export function stateMetrics(registry: Registry, db: Db, queues: Array<{ name: string; queue: Queue }>): void {
  new Gauge({
    name: 'bookstage_queue_jobs',
    help: 'Jobs in each BullMQ queue by state (waiting, active, delayed, failed); absent while Redis is unreachable.',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const { name, queue } of queues) {
          const counts = await within(queue.getJobCounts(...STATES), READ_MS, 'Redis');
          for (const state of STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        }
      } catch {
        this.reset();
      }
    },
  });
  new Gauge({
    name: 'bookstage_scope_locks',
    help: 'Plan lock documents: keys held by pending staged operations (docs/reference/http-api.md §6.3), plus dead ones not yet cleared; NaN while MongoDB is unreachable.',
    registers: [registry],
    async collect() {
      try {
        // The `count` command: MongoDB answers from collection metadata, without reading the documents.
        this.set(await within(collections(db).planLocks.estimatedDocumentCount(), READ_MS, 'MongoDB'));
      } catch {
        // An unlabelled gauge cannot be absent (reset() would show 0): NaN says "unknown".
        this.set(Number.NaN);
      }
    },
  });
}
