// Webhook delivery in the worker (docs/reference/webhooks.md): its own BullMQ queue,
// `webhooks`. A repeatable `dispatch` job (every WEBHOOK_DISPATCH_EVERY_MS)
// looks for endpoints behind their organisation's feed and adds one `drain`
// job per such endpoint, with the endpoint's id as the job id: BullMQ keeps
// one job per id, so one drain per endpoint runs at a time, which is what
// keeps deliveries in sequence order. Staging calls never wait for any of
// this: the events are already stored with their transitions (the outbox).
// On FerretDB 1.x the feed's sequence marks are one SQL aggregate (the store
// port's `sequenceMarks`) instead of FerretDB sending every reservation
// (docs/reference/webhooks.md "Written with the transition").
import { Queue, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../shared/logger.js';
import { latestSettledSequence } from '../../shared/storage/events.js';
import { allEndpoints } from '../../shared/storage/webhook-endpoints.js';
import { drainEndpoint, type DrainSettings } from './drain.js';

export const WEBHOOK_QUEUE = 'webhooks';

export interface WebhookSettings extends DrainSettings {
  dispatchEveryMs: number;
  concurrency: number;
}

interface DrainData {
  endpoint_id: string;
}

export async function startWebhooks(
  db: Db,
  connection: Redis | Cluster,
  prefix: string,
  settings: WebhookSettings,
  registry: Registry,
  logger: Logger,
): Promise<{ close: () => Promise<void> }> {
  const deliveries = new Counter({
    name: 'bookstage_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered (2xx in time), failed (will be retried), given_up (the last attempt failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const backlog = new Gauge({
    name: 'bookstage_webhook_retry_backlog',
    help: 'Webhook endpoints waiting for a retry of a failed delivery (each holds back its later events), at the last dispatch.',
    registers: [registry],
  });
  for (const outcome of ['delivered', 'failed', 'given_up']) deliveries.inc({ outcome }, 0);
  const queue = new Queue<DrainData | Record<string, never>>(WEBHOOK_QUEUE, { connection, prefix });
  // A lost connection as a JSON log line: without a listener BullMQ writes each reconnect failure to stderr as plain text.
  queue.on('error', (err) => logger.warn({ err, queue: WEBHOOK_QUEUE }, 'queue connection error'));
  await queue.upsertJobScheduler(
    'webhook-dispatch',
    { every: settings.dispatchEveryMs },
    { name: 'dispatch', opts: { removeOnComplete: true, removeOnFail: 100 } },
  );

  const dispatch = async (): Promise<number> => {
    const endpoints = await allEndpoints(db);
    const now = new Date();
    const latest = new Map<string, number>();
    let added = 0;
    backlog.set(endpoints.filter((ep) => ep.retry !== null).length);
    for (const ep of endpoints) {
      if (ep.retry && ep.retry.next_at > now.toISOString()) continue;
      if (!latest.has(ep.org_id)) latest.set(ep.org_id, await latestSettledSequence(db, ep.org_id, now));
      if (!ep.retry && latest.get(ep.org_id)! <= ep.delivered_through) continue;
      await queue.add(
        'drain',
        { endpoint_id: ep._id },
        { jobId: `drain-${ep._id}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      );
      added += 1;
    }
    return added;
  };

  const worker = new Worker<DrainData | Record<string, never>>(
    WEBHOOK_QUEUE,
    async (job) => {
      if (job.name === 'dispatch') return { drains: await dispatch() };
      const { endpoint_id: endpointId } = job.data as DrainData;
      await drainEndpoint(db, endpointId, settings, logger, (outcome) => deliveries.inc({ outcome }));
      return { endpoint_id: endpointId };
    },
    { connection, prefix, concurrency: settings.concurrency },
  );
  worker.on('error', (err) => logger.error({ err, queue: WEBHOOK_QUEUE }, 'worker error'));
  worker.on('failed', (job, err) => logger.warn({ err, queue: WEBHOOK_QUEUE, job: job?.name }, 'webhook job failed'));
  await worker.waitUntilReady();
  return {
    close: async () => {
      await worker.close();
      await queue.close();
    },
  };
}
