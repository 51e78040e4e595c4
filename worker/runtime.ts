import { Worker } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { createRedis } from '../shared/queue/connection.js';
import { READ_QUEUE, type ReadJobData, type ReadJobResult } from '../shared/queue/read-jobs.js';
import {
  STAGE_QUEUE,
  stageWorkerOptions,
  type AnyStageJobData,
  type StageJobReturn,
} from '../shared/queue/stage-jobs.js';
import { backfillFeedBlocks } from '../shared/storage/events.js';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { chooseStoreAdapter, closeStoreAdapter, storeAdapter } from '../shared/storage/store-adapter.js';
import { createJobMetrics } from '../shared/metrics/job-metrics.js';
import { createRegistry } from '../shared/metrics/registry.js';
import { startMaintenance } from './maintenance.js';
import { backfillFigures } from '../shared/storage/book-figures.js';
import { startMetricsServer } from './metrics-server.js';
import { fillMissingOpenAmounts } from '../shared/storage/entry-open-amounts.js';
import { startWebhooks } from './webhooks/dispatcher.js';
import { createStageProcessor } from './processor.js';
import { FiguresRefresher } from './figures-refresher.js';
import { createReadProcessor } from './read-processor.js';

export interface WorkerRuntime {
  /** The port of the worker's /metrics and /healthz; null when it could not listen. */
  metricsPort: number | null;
  close: () => Promise<void>;
}

export async function startWorker(config: Config, logger: Logger): Promise<WorkerRuntime> {
  const mongo = await connectMongo(config.mongoUrl);
  await ensureIndexes(mongo.db, { postgresUrl: config.ferretdbPostgresUrl || undefined, logger });
  // The store port's adapter, chosen once (docs/design/architecture.md "The store port"): SQL on FerretDB 1.x's
  // tables for the worker's reads, the staging's writes and the whole-account reads, else the driver.
  chooseStoreAdapter(mongo.db, { postgresUrl: config.ferretdbPostgresUrl || undefined, logger });
  await storeAdapter(mongo.db);
  // Events stored before the feed read by block (docs/reference/webhooks.md "The feed"): once per database.
  const backfilled = await backfillFeedBlocks(mongo.db);
  if (backfilled > 0) logger.info({ events: backfilled }, 'feed blocks set on events stored before them');
  // Entries' open amounts of organisations stored before them (docs/design/entry-open-amounts.md "Filling"): once per organisation.
  const filled = await fillMissingOpenAmounts(mongo.db);
  if (filled > 0) logger.info({ orgs: filled }, 'open amounts filled for organisations stored before them');
  const connection = createRedis(config.redisUrl);
  // Kept figures an apply left stale, computed once its job answered (docs/reference/book-reads.md "Kept figures").
  const figures = new FiguresRefresher(mongo.db);
  const worker = new Worker<AnyStageJobData, StageJobReturn>(
    STAGE_QUEUE,
    createStageProcessor(mongo.db, logger, { stagedTtlMs: config.stagedTtlHours * 3600_000 }, figures),
    {
      ...stageWorkerOptions(config),
      connection,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
    },
  );
  worker.on('error', (err) => logger.error({ err }, 'worker error'));
  // Reads (the duplicate overview, the counterparty list) on their own queue and concurrency: they never hold up staging.
  const readConnection = createRedis(config.redisUrl);
  const readWorker = new Worker<ReadJobData, ReadJobResult>(
    READ_QUEUE,
    createReadProcessor(mongo.db, logger, figures),
    {
      connection: readConnection,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
    },
  );
  readWorker.on('error', (err) => logger.error({ err, queue: READ_QUEUE }, 'worker error'));
  const registry = createRegistry('worker');
  const jobMetrics = createJobMetrics(registry);
  jobMetrics.watch(worker, STAGE_QUEUE);
  jobMetrics.watch(readWorker, READ_QUEUE);
  const maintenanceConnection = createRedis(config.redisUrl);
  const maintenance = await startMaintenance(
    mongo.db,
    maintenanceConnection,
    config.queuePrefix,
    logger,
    config.recoverySweepMs,
    { eventRetentionDays: config.eventRetentionDays },
  );
  // Webhook delivery on its own queue and connection (docs/reference/webhooks.md): it never holds up staging.
  const webhookConnection = createRedis(config.redisUrl);
  const webhooks = await startWebhooks(
    mongo.db,
    webhookConnection,
    config.queuePrefix,
    {
      dispatchEveryMs: config.webhookDispatchEveryMs,
      concurrency: config.webhookConcurrency,
      orgConcurrency: config.webhookOrgConcurrency,
      maxAttempts: config.webhookMaxAttempts,
      backoffMs: config.webhookBackoffMs,
      timeoutMs: config.webhookTimeoutMs,
      allowInsecure: config.webhookAllowInsecure === 'true',
      secretKey: config.webhookSecretKey,
    },
    registry,
    logger,
  );
  await worker.waitUntilReady();
  await readWorker.waitUntilReady();
  // Organisations whose kept figures are not built yet (docs/reference/book-reads.md "Kept figures"), in the
  // background: a read or an apply that comes first builds its organisation's itself.
  let closing = false;
  const backfill = backfillFigures(mongo.db, () => closing).then(
    (built) => built > 0 && logger.info({ organisations: built }, 'kept book figures built'),
    (err: unknown) => logger.warn({ err }, 'building kept book figures failed; readers build them'),
  );
  const metrics = await startMetricsServer(registry, config.workerMetricsPort, logger, config.workerMetricsHost);
  // node_flags: whether it runs with worker/node-flags.ts's flags, as deployed.
  logger.info(
    { concurrency: config.workerConcurrency, metrics_port: metrics.port, node_flags: process.execArgv },
    'worker ready',
  );
  return {
    metricsPort: metrics.port,
    // worker.close() takes no new jobs and waits for those in flight; then connections go.
    // /metrics and /healthz answer until the end, so the last jobs' counts can still be scraped.
    close: async () => {
      closing = true;
      await Promise.all([worker.close(), readWorker.close(), backfill]);
      await figures.close();
      await metrics.close();
      await maintenance.close();
      await webhooks.close();
      connection.disconnect();
      readConnection.disconnect();
      maintenanceConnection.disconnect();
      webhookConnection.disconnect();
      await closeStoreAdapter(mongo.db);
      await mongo.client.close();
    },
  };
}
