// Webhook delivery in the worker (docs/reference/webhooks.md "Delivery"): two
// BullMQ queues of its own, apart from staging. On `webhook-dispatch`, a
// repeatable `dispatch` job (every WEBHOOK_DISPATCH_EVERY_MS), on a worker of
// one slot that nothing else uses, looks for endpoints behind their
// organisation's feed and adds one `drain` job per such endpoint to
// `webhooks`, with the endpoint's id as the job id: BullMQ keeps one job per
// id, so one drain per endpoint runs at a time, which is what keeps
// deliveries in sequence order. Drains run WEBHOOK_CONCURRENCY at once per
// worker, and at most WEBHOOK_ORG_CONCURRENCY of one organisation at once
// across workers (org-slots.ts): a drain that finds its organisation's slots
// taken ends at once and the next dispatch adds it again, so one
// organisation's slow receivers hold a bounded share of the slots and never
// the dispatch. Staging calls never wait for any of this: the events are
// already stored with their transitions (the outbox). On FerretDB 1.x the
// feed's sequence marks are one SQL aggregate (the store port's
// `sequenceMarks`) instead of FerretDB sending every reservation
// (docs/reference/webhooks.md "Written with the transition").
import { Queue, Worker } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../shared/logger.js';
import { latestSettledSequence } from '../../shared/storage/events.js';
import { allEndpoints, findEndpointById } from '../../shared/storage/webhook-endpoints.js';
import { drainEndpoint, type DrainSettings } from './drain.js';
import { orgSlots } from './org-slots.js';

/** The drains. */
export const WEBHOOK_QUEUE = 'webhooks';
/** The dispatch alone, so that drains holding every slot never hold it up. */
export const WEBHOOK_DISPATCH_QUEUE = 'webhook-dispatch';
const SCHEDULER = 'webhook-dispatch';

export interface WebhookSettings extends DrainSettings {
  dispatchEveryMs: number;
  /** Drains one worker runs at once. */
  concurrency: number;
  /** Drains of one organisation running at once, across workers. */
  orgConcurrency: number;
}

interface DrainData {
  endpoint_id: string;
  /** Absent on a drain added by a version before organisation slots. */
  org_id?: string;
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
  const dispatchQueue = new Queue(WEBHOOK_DISPATCH_QUEUE, { connection, prefix });
  // A lost connection as a JSON log line: without a listener BullMQ writes each reconnect failure to stderr as plain text.
  queue.on('error', (err) => logger.warn({ err, queue: WEBHOOK_QUEUE }, 'queue connection error'));
  dispatchQueue.on('error', (err) => logger.warn({ err, queue: WEBHOOK_DISPATCH_QUEUE }, 'queue connection error'));
  await dispatchQueue.upsertJobScheduler(
    SCHEDULER,
    { every: settings.dispatchEveryMs },
    { name: 'dispatch', opts: { removeOnComplete: true, removeOnFail: 100 } },
  );
  // The schedule's old place, beside the drains: gone once every worker runs this version (a leftover dispatch there still runs).
  await queue.removeJobScheduler(SCHEDULER);
  // A slot outlives its last attempt by more than one attempt can take.
  const slots = orgSlots(connection, prefix, settings.orgConcurrency, settings.timeoutMs + 30_000);

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
        { endpoint_id: ep._id, org_id: ep.org_id },
        { jobId: `drain-${ep._id}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      );
      added += 1;
    }
    return added;
  };

  const drain = async ({ endpoint_id: endpointId, org_id: given }: DrainData) => {
    const orgId = given ?? (await findEndpointById(db, endpointId))?.org_id;
    if (orgId === undefined) return { endpoint_id: endpointId };
    const slot = await slots.take(orgId, endpointId);
    // The organisation's slots are taken: the next dispatch adds this endpoint again.
    if (!slot) return { endpoint_id: endpointId, waiting_for_slot: true };
    try {
      await drainEndpoint(
        db,
        endpointId,
        settings,
        logger,
        (outcome) => deliveries.inc({ outcome }),
        () => slot.renew(),
      );
    } finally {
      await slot.release();
    }
    return { endpoint_id: endpointId };
  };

  const dispatcher = new Worker(WEBHOOK_DISPATCH_QUEUE, async () => ({ drains: await dispatch() }), {
    connection,
    prefix,
    concurrency: 1,
  });
  const worker = new Worker<DrainData | Record<string, never>>(
    WEBHOOK_QUEUE,
    async (job) => (job.name === 'dispatch' ? { drains: await dispatch() } : drain(job.data as DrainData)),
    { connection, prefix, concurrency: settings.concurrency },
  );
  for (const [w, name] of [
    [dispatcher, WEBHOOK_DISPATCH_QUEUE],
    [worker, WEBHOOK_QUEUE],
  ] as const) {
    w.on('error', (err) => logger.error({ err, queue: name }, 'worker error'));
    w.on('failed', (job, err) => logger.warn({ err, queue: name, job: job?.name }, 'webhook job failed'));
  }
  await Promise.all([dispatcher.waitUntilReady(), worker.waitUntilReady()]);
  return {
    close: async () => {
      await Promise.all([dispatcher.close(), worker.close()]);
      await Promise.all([queue.close(), dispatchQueue.close()]);
    },
  };
}
