// Gauges read when /metrics is scraped (docs/metrics.md): queue depth by state
// from Redis, pending scope locks from MongoDB. Each read is bounded, so a
// scrape during an outage still answers; the gauge is then left empty rather
// than showing the last value as if it were current.
import type { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import { Gauge, type Registry } from 'prom-client';
import { within } from '../../shared/dependency-errors.js';
import { collections } from '../../shared/storage/collections.js';

const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** Well under a Prometheus scrape timeout (10 s by default). */
const READ_MS = 1000;

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
    help: 'Scope lock documents: keys held by pending staged operations (docs/http-api.md §6.3), plus dead ones not yet cleared; absent while MongoDB is unreachable.',
    registers: [registry],
    async collect() {
      this.reset();
      try {
        this.set(await within(collections(db).scopeLocks.countDocuments({}), READ_MS, 'MongoDB'));
      } catch {
        this.reset();
      }
    },
  });
}
