// The API's wait for a read job (api/read-handler.ts, docs/reference/http-api.md
// §10): it listens for the job's end before adding it, answers the job's
// result when the job completes within the wait, and 503 service_unavailable
// (read_timeout) when it does not. An app of this process on a queue prefix
// of its own: no worker takes its jobs unless the test starts one.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createApp } from '../../api/app.js';
import { createLogger } from '../../shared/logger.js';
import { READ_QUEUE, type ReadJobData, type ReadJobResult } from '../../shared/queue/read-jobs.js';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';

const PATH = '/api/v1/cli/bookkeeping/inbox/duplicates';

describe('the API waiting for a read job', function () {
  this.timeout(60_000);
  const prefix = `bst-read-wait-${randomBytes(3).toString('hex')}`;
  let connection: Redis;
  let readQueue: Queue<ReadJobData, ReadJobResult>;
  let readQueueEvents: QueueEvents;
  const servers: Server[] = [];
  let db: Db;
  let redisUrl: string;
  let token: string;

  /** An app of this process whose reads wait `waitMs` for their jobs; its base URL. */
  const app = (waitMs: number): string => {
    const server = createApp({
      db,
      logger: createLogger('api', 'silent'),
      queue: {} as never,
      queueEvents: {} as never,
      stageWaitMs: 1,
      stageWaitMaxMs: 1,
      jobOptions: {} as never,
      reads: { readQueue, readQueueEvents, readWaitMs: waitMs, cursorSecret: 'read-wait-test-secret-0123456789abcdef' },
    }).listen(0);
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  before(async () => {
    const s = await stack();
    db = s.db;
    redisUrl = s.config.redisUrl;
    connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    readQueue = new Queue<ReadJobData, ReadJobResult>(READ_QUEUE, { connection, prefix });
    readQueueEvents = new QueueEvents(READ_QUEUE, { connection: { url: redisUrl }, prefix });
    await readQueueEvents.waitUntilReady();
    // A fresh inbox has no stored overview, so its first page is a read job.
    const books = new Books();
    books.doc({ received_at: '2026-03-01T08:00:00.000Z' });
    await s.load(books.file);
    token = await s.token(books.orgId, ['inbox:read']);
  });

  after(async () => {
    for (const server of servers) server.close();
    await readQueueEvents?.close();
    await readQueue?.obliterate({ force: true }).catch(() => undefined);
    await readQueue?.close();
    connection?.disconnect();
  });

  const page = async (
    base: string,
  ): Promise<{
    status: number;
    body: { data?: { groups: unknown[] }; error?: { code: string; details?: { reason?: string } } };
  }> => {
    const res = await fetch(`${base}${PATH}?limit=5`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as never };
  };

  it('answers 503 service_unavailable (read_timeout) when no worker finishes the read job within the wait', async () => {
    const res = await page(app(1000));
    expect(res.status).to.equal(503);
    expect(res.body.error?.code).to.equal('service_unavailable');
    expect(res.body.error?.details?.reason).to.equal('read_timeout');
  });

  it("answers the job's result when a worker completes it, from the completion event", async function () {
    // The wait is far longer than this test may take: only the completion event can answer in time.
    this.timeout(15_000);
    const base = app(600_000);
    // A stand-in worker on this prefix answers an empty page for every read.
    const worker = new Worker<ReadJobData, ReadJobResult>(
      READ_QUEUE,
      () => Promise.resolve({ groups: [], next_after: null }),
      { connection: { url: redisUrl }, prefix },
    );
    try {
      const res = await page(base);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data?.groups).to.deep.equal([]);
    } finally {
      await worker.close();
    }
  });
});
