// Everything an API process holds: MongoDB, the queue and its events, the
// HTTP server. Tests start it in-process; server.ts wraps it for production.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Queue, QueueEvents } from 'bullmq';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { createProducerRedis, createRedis } from '../shared/queue/connection.js';
import { READ_QUEUE, type ReadJobData, type ReadJobResult } from '../shared/queue/read-jobs.js';
import { STAGE_QUEUE, stageJobOptions, type AnyStageJobData, type StageJobReturn } from '../shared/queue/stage-jobs.js';
import { within } from '../shared/dependency-errors.js';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { chooseStoreAdapter, closeStoreAdapter, storeAdapter } from '../shared/storage/store-adapter.js';
import { createRegistry } from '../shared/metrics/registry.js';
import { createApp, type OpsDeps } from './app.js';
import { answerClientError } from './middleware/client-error.js';
import { stateMetrics } from './metrics/state-metrics.js';
import { useTokenCache } from './token-cache.js';

export interface ApiRuntime {
  port: number;
  close: () => Promise<void>;
}

/** Run `task` until it succeeds, every 2 s, in the background (a dependency that is down at start). */
function untilDone(task: () => Promise<unknown>, logger: Logger, what: string): { stop: () => void } {
  let stopped = false;
  const attempt = (): void => {
    task().then(
      () => logger.info(`${what} ready`),
      (err: unknown) => {
        logger.warn({ err }, `${what} not ready yet; retrying in 2 s`);
        if (!stopped) setTimeout(attempt, 2000).unref();
      },
    );
  };
  attempt();
  return {
    stop: () => {
      stopped = true;
    },
  };
}

/** Wait a little for a connection; past that, start anyway and let it connect in the background. */
async function readyOrLater(ready: Promise<unknown>, logger: Logger, what: string): Promise<void> {
  try {
    await within(ready, 2000, 'Redis');
  } catch (err) {
    logger.warn({ err }, `${what} unreachable at start; requests answer 503 until it is back`);
    ready.catch(() => undefined);
  }
}

/** An unreachable MongoDB answers 503 within this (plus the request's own work): under 2 s. */
const API_MONGO_SELECTION_MS = 1500;
/**
 * A connection that stays open but never answers (a half-open socket) is not
 * caught by server selection: past this, the read fails as a network error and
 * the request answers 503 instead of hanging (docs/operating/reliability.md). Far above
 * any query the API makes, so load alone does not trip it.
 */
const API_MONGO_SOCKET_TIMEOUT_MS = 10_000;

export async function startApi(config: Config, logger: Logger): Promise<ApiRuntime> {
  // The API starts while MongoDB or Redis is down: requests answer 503 until they are back (docs/reference/http-api.md §6.4).
  const mongo = await connectMongo(config.mongoUrl, API_MONGO_SELECTION_MS, {
    lazy: true,
    socketTimeoutMS: API_MONGO_SOCKET_TIMEOUT_MS,
  });
  useTokenCache(mongo.db, config.tokenCacheMs);
  // The store port's adapter, chosen once (docs/design/architecture.md "The store port"): asked for as soon as
  // the indexes are there, and on the first request before that.
  chooseStoreAdapter(mongo.db, { postgresUrl: config.ferretdbPostgresUrl || undefined, logger });
  const indexes = untilDone(
    async () => {
      await ensureIndexes(mongo.db, { postgresUrl: config.ferretdbPostgresUrl || undefined, logger });
      await storeAdapter(mongo.db);
    },
    logger,
    'indexes',
  );
  const queueConnection = createProducerRedis(config.redisUrl);
  const eventsConnection = createRedis(config.redisUrl);
  const queue = new Queue<AnyStageJobData, StageJobReturn>(STAGE_QUEUE, {
    connection: queueConnection,
    prefix: config.queuePrefix,
  });
  const queueEvents = new QueueEvents(STAGE_QUEUE, { connection: eventsConnection, prefix: config.queuePrefix });
  await readyOrLater(Promise.all([queue.waitUntilReady(), queueEvents.waitUntilReady()]), logger, 'Redis');
  // Each waiting request adds listeners for its own job; hundreds of concurrent
  // waits are normal for agents, not a leak.
  queueEvents.setMaxListeners(10_000);
  queue.setMaxListeners(10_000);
  // Reads computed in the worker: their own queue and events (the queue shares the stage queue's connection).
  const readEventsConnection = createRedis(config.redisUrl);
  const readQueue = new Queue<ReadJobData, ReadJobResult>(READ_QUEUE, {
    connection: queueConnection,
    prefix: config.queuePrefix,
  });
  const readQueueEvents = new QueueEvents(READ_QUEUE, { connection: readEventsConnection, prefix: config.queuePrefix });
  await readyOrLater(readQueueEvents.waitUntilReady(), logger, 'Redis');
  readQueueEvents.setMaxListeners(10_000);
  readQueue.setMaxListeners(10_000);
  const reads = { readQueue, readQueueEvents, readWaitMs: config.stageWaitMs, cursorSecret: config.cursorSecret };
  // A connection error (Redis down, a cluster failover) as a JSON log line: without a listener BullMQ writes it to stderr as plain text.
  const connectionError =
    (queueName: string) =>
    (err: Error): void =>
      logger.warn({ err, queue: queueName }, 'queue connection error');
  queue.on('error', connectionError(STAGE_QUEUE));
  queueEvents.on('error', connectionError(STAGE_QUEUE));
  readQueue.on('error', connectionError(READ_QUEUE));
  readQueueEvents.on('error', connectionError(READ_QUEUE));

  const registry = createRegistry('api');
  stateMetrics(registry, mongo.db, [
    { name: STAGE_QUEUE, queue },
    { name: READ_QUEUE, queue: readQueue },
  ]);
  const ops: OpsDeps = {
    registry,
    // The producer connection fails at once while Redis is down, so the probe never waits on a queued command.
    readiness: [
      { dependency: 'Redis', ping: () => queueConnection.ping() },
      { dependency: 'MongoDB', ping: () => mongo.db.command({ ping: 1 }) },
    ],
    redis: queueConnection,
    rateLimit: {
      requests: config.rateLimitRequests,
      windowSeconds: config.rateLimitWindowS,
      keyPrefix: `${config.queuePrefix}:rate-limit`,
      authFailures: config.rateLimitAuthFailures,
    },
    adminQueues: [queue, readQueue],
  };
  const app = createApp({
    db: mongo.db,
    logger,
    queue,
    queueEvents,
    stageWaitMs: config.stageWaitMs,
    stageWaitMaxMs: config.stageWaitMaxMs,
    jobOptions: stageJobOptions(config),
    reads,
    ops,
    webhooks: { secretKey: config.webhookSecretKey, allowInsecure: config.webhookAllowInsecure === 'true' },
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.port, () => resolve(s));
  });
  server.on('clientError', answerClientError);
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    // Stop accepting, let in-flight requests answer, then release connections.
    closing ??= (async () => {
      indexes.stop();
      await new Promise<void>((resolve) => {
        // A keep-alive connection whose request has just been answered becomes idle: close those as they appear,
        // so the server closes as soon as the last in-flight request has its answer.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      });
      await queueEvents.close();
      await queue.close();
      await readQueueEvents.close();
      await readQueue.close();
      readEventsConnection.disconnect();
      queueConnection.disconnect();
      eventsConnection.disconnect();
      await mongo.client.close();
      await closeStoreAdapter(mongo.db);
    })();
    return closing;
  };
  return { port, close };
}
