// Housekeeping that FerretDB cannot do by itself (no TTL indexes): a
// repeatable BullMQ job sweeps idempotency keys, job results and statement
// uploads past their retention. A second one, every RECOVERY_SWEEP_MS, recovers staged
// operations whose job died for good (docs/operating/reliability.md "Recovery bounds").
// The schedulers are upserted by every worker at start; BullMQ keeps one
// schedule each however many replicas run.
import { Queue, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import { sweepIdempotencyKeys } from '../shared/storage/idempotency-keys.js';
import { sweepJobResults } from '../shared/storage/job-results.js';
import { sweepStatementUploads } from '../shared/storage/statement-uploads.js';
import { sweepBookExports } from '../shared/storage/book-exports.js';
import { sweepDeadLocks } from '../shared/storage/plan-lock-sweep.js';
import { sweepEvents } from '../shared/storage/events.js';
import { sweepDeliveries } from '../shared/storage/webhook-endpoints.js';
import { expireDueOperations } from './operation/expiry-sweep.js';
import { recoverOperations } from './operation/recovery-sweep.js';

export const MAINTENANCE_QUEUE = 'maintenance';
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface SweepCounts {
  idempotency_keys: number;
  job_results: number;
  /** Statement files past their keep (shared/storage/statement-uploads.ts). */
  statement_uploads: number;
  /** Books export parts past their hour (shared/storage/book-exports.ts). */
  book_exports: number;
  staged_operations_expired: number;
  plan_locks_removed: number;
  /** Feed events and webhook attempts past EVENT_RETENTION_DAYS (docs/reference/webhooks.md). */
  events_removed: number;
  webhook_deliveries_removed: number;
}

export interface MaintenanceSettings {
  eventRetentionDays: number;
}

const DEFAULT_SETTINGS: MaintenanceSettings = { eventRetentionDays: 30 };

/** Also expires staged operations past expires_at and removes locks no live operation holds (docs/design/staged-lifecycle.md "Expiry"). */
export async function sweepExpired(
  db: Db,
  now: Date,
  settings: MaintenanceSettings = DEFAULT_SETTINGS,
): Promise<SweepCounts> {
  const retainedFrom = new Date(now.getTime() - settings.eventRetentionDays * 86_400_000);
  return {
    idempotency_keys: await sweepIdempotencyKeys(db, now),
    job_results: await sweepJobResults(db, now),
    statement_uploads: await sweepStatementUploads(db, now),
    book_exports: await sweepBookExports(db, now),
    staged_operations_expired: await expireDueOperations(db, now),
    plan_locks_removed: await sweepDeadLocks(db, now),
    events_removed: await sweepEvents(db, retainedFrom),
    webhook_deliveries_removed: await sweepDeliveries(db, retainedFrom),
  };
}

export async function startMaintenance(
  db: Db,
  connection: Redis | Cluster,
  prefix: string,
  logger: Logger,
  recoverySweepMs: number,
  settings: MaintenanceSettings = DEFAULT_SETTINGS,
): Promise<{ close: () => Promise<void> }> {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  // Without a listener BullMQ writes a connection error (Redis down) to stderr as plain text; the logs are JSON.
  queue.on('error', (err) => logger.warn({ err, queue: MAINTENANCE_QUEUE }, 'queue connection error'));
  await queue.upsertJobScheduler(
    'sweep-expired',
    { every: SWEEP_EVERY_MS },
    { name: 'sweep-expired', opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  await queue.upsertJobScheduler(
    'recover-operations',
    { every: recoverySweepMs },
    { name: 'recover-operations', opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  const worker = new Worker(
    MAINTENANCE_QUEUE,
    async (job) => {
      if (job.name === 'recover-operations') {
        const recovered = await recoverOperations(db, logger, new Date());
        if (recovered.claims_rolled_forward + recovered.applies_resumed + recovered.staged_events_written > 0)
          logger.info({ recovered }, 'recovered staged operations whose job died');
        return recovered;
      }
      const swept = await sweepExpired(db, new Date(), settings);
      logger.info({ swept }, 'swept expired idempotency keys, job results, staged operations and dead plan locks');
      return swept;
    },
    { connection, prefix, concurrency: 1 },
  );
  worker.on('error', (err) => logger.error({ err }, 'maintenance worker error'));
  return {
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}
