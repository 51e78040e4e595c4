// BullMQ under a hash-tagged QUEUE_PREFIX (docs/operating/scaling.md): every key of a
// queue carries the same `{tag}`, so on Redis Cluster they hash to one slot
// and BullMQ's multi-key Lua scripts run. Checked on the real Redis: a job
// goes round trip, and every key the queue wrote has the tag.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { loadConfig } from '../../shared/config.js';
import { createRedis } from '../../shared/queue/connection.js';
import { stack } from '../helpers/stack.js';

describe('BullMQ with a hash-tagged QUEUE_PREFIX', () => {
  it('runs a job round trip and writes only keys that carry the hash tag', async () => {
    const s = await stack();
    const tag = `bst-ht-${randomBytes(4).toString('hex')}`;
    const prefix = loadConfig({ ...process.env, QUEUE_PREFIX: `{${tag}}` }).queuePrefix;
    const [connection, eventsConnection, workerConnection] = [
      createRedis(s.config.redisUrl),
      createRedis(s.config.redisUrl),
      createRedis(s.config.redisUrl),
    ];
    const queue = new Queue('hash-tag-check', { connection, prefix });
    const events = new QueueEvents('hash-tag-check', { connection: eventsConnection, prefix });
    const worker = new Worker(
      'hash-tag-check',
      (job) => Promise.resolve({ doubled: (job.data as { n: number }).n * 2 }),
      { connection: workerConnection, prefix },
    );
    try {
      await Promise.all([events.waitUntilReady(), worker.waitUntilReady()]);
      const job = await queue.add('double', { n: 21 });
      expect(await job.waitUntilFinished(events, 15_000)).to.deep.equal({ doubled: 42 });
      const keys = await connection.keys(`*${tag}*`);
      expect(keys.length).to.be.greaterThan(0);
      expect(keys.filter((k) => !k.startsWith(`{${tag}}:hash-tag-check:`))).to.deep.equal([]);
    } finally {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      for (const c of [connection, eventsConnection, workerConnection]) c.disconnect();
    }
  });
});
