// "Nothing was written": a checksum of every collection of the test database
// (each document, in _id order, as canonical JSON) and the job counts of both
// BullMQ queues, taken before and after a batch of requests.
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import { canonicalJson } from '../../shared/domain/plan-hash.js';
import { createRedis } from '../../shared/queue/connection.js';
import { READ_QUEUE } from '../../shared/queue/read-jobs.js';
import { STAGE_QUEUE } from '../../shared/queue/stage-jobs.js';
import { stack } from '../helpers/stack.js';

export interface Snapshot {
  collections: Record<string, string>;
  queues: Record<string, Record<string, number>>;
}

/** sha256 over every document of `name`, sorted by _id; the count is kept beside it for a readable diff. */
export async function collectionChecksum(db: Db, name: string, filter: Record<string, unknown> = {}): Promise<string> {
  const docs = await db
    .collection(name)
    .find(filter as never)
    .sort({ _id: 1 })
    .toArray();
  const hash = createHash('sha256');
  for (const doc of docs) hash.update(canonicalJson(JSON.parse(JSON.stringify(doc)) as unknown)).update('\n');
  return `${docs.length}:${hash.digest('hex').slice(0, 16)}`;
}

export async function collectionNames(db: Db): Promise<string[]> {
  return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
}

/** Job counts of a queue in every state (waiting, active, delayed, completed, failed, …). */
async function queueCounts(name: string): Promise<Record<string, number>> {
  const s = await stack();
  const connection = createRedis(s.config.redisUrl);
  const queue = new Queue(name, { connection, prefix: s.config.queuePrefix });
  try {
    return await queue.getJobCounts();
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

export async function snapshot(): Promise<Snapshot> {
  const { db } = await stack();
  const collections: Record<string, string> = {};
  for (const name of await collectionNames(db)) collections[name] = await collectionChecksum(db, name);
  return {
    collections,
    queues: { [STAGE_QUEUE]: await queueCounts(STAGE_QUEUE), [READ_QUEUE]: await queueCounts(READ_QUEUE) },
  };
}

/** Wait until neither queue has work waiting, running or delayed (an earlier test's jobs), at most 30 s. */
export async function queuesIdle(): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    const counts = [await queueCounts(STAGE_QUEUE), await queueCounts(READ_QUEUE)];
    if (counts.every((c) => (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) === 0)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the queues did not become idle within 30 s');
}
