// Housekeeping that FerretDB cannot do by itself (no TTL indexes): a
// repeatable BullMQ job sweeps idempotency keys and job results past their
// 24 h retention. The scheduler is upserted by every worker at start; BullMQ
// keeps one schedule however many replicas run.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import { sweepIdempotencyKeys } from '../shared/storage/idempotency-keys.js';
import { sweepJobResults } from '../shared/storage/job-results.js';
import { sweepDeadLocks } from '../shared/storage/scope-lock-sweep.js';
import { expireDueOperations } from './staged/expiry-sweep.js';

export const MAINTENANCE_QUEUE = 'maintenance';
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface SweepCounts { idempotency_keys: number; job_results: number; staged_operations_expired: number; scope_locks_removed: number }

/** Also expires staged operations past expires_at and removes locks no live operation holds (docs/design/staged-lifecycle.md "Expiry"). */
export async function sweepExpired(db: Db, now: Date): Promise<SweepCounts> {
  return {
    idempotency_keys: await sweepIdempotencyKeys(db, now),
    job_results: await sweepJobResults(db, now),
    staged_operations_expired: await expireDueOperations(db, now),
    scope_locks_removed: await sweepDeadLocks(db, now),
  };
}

export async function startMaintenance(db: Db, connection: Redis, prefix: string, logger: Logger): Promise<{ close: () => Promise<void> }> {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  await queue.upsertJobScheduler('sweep-expired', { every: SWEEP_EVERY_MS }, { name: 'sweep-expired', opts: { removeOnComplete: 100, removeOnFail: 100 } });
  const worker = new Worker(MAINTENANCE_QUEUE, async () => {
    const swept = await sweepExpired(db, new Date());
    logger.info({ swept }, 'swept expired idempotency keys, job results, staged operations and dead scope locks');
    return swept;
  }, { connection, prefix, concurrency: 1 });
  worker.on('error', (err) => logger.error({ err }, 'maintenance worker error'));
  return {
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}
