// Staging round trip (reversal stage on 2,000-size demo orgs) against the
// floor measured in the same run: one empty BullMQ add→complete round trip
// plus one insert, the least any staging call can cost on this stack.
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, Worker } from 'bullmq';
import type { Db } from 'mongodb';
import { call, expectStaged, reversePath } from '../lib/http.js';
import { loadDemoOrg, reversibleEntries, tokenFor } from '../lib/data.js';
import type { CpuSplit } from '../lib/cpu-split.js';
import type { Scale } from '../lib/scale.js';
import { median, quantile, round, timed } from '../lib/stats.js';

export interface RoundTripResult {
  p50_ms: number;
  p95_ms: number;
  floor_p50_ms: number;
  ratio_p50: number;
  throughput_8_rps: number;
}

export interface BenchEnv {
  db: Db;
  baseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  scale: Scale;
  log: (line: string) => void;
  /** Runs the measured part of a section and adds where its CPU went to the run's split under `label` (bench/lib/cpu-split.ts). */
  profile: <T>(label: string, run: () => Promise<T>) => Promise<T>;
  /** Where the CPU went under `label` so far (summed over its profiles). */
  split: (label: string) => CpuSplit | undefined;
}

const CLIENTS = 8;

/** Entries to reverse, from as many fresh 2,000-size demo orgs as it takes. */
function entrySource(env: BenchEnv): (n: number) => Promise<{ token: string; entryId: string }[]> {
  let pool: { token: string; entryId: string }[] = [];
  let orgs = 0;
  return async (n) => {
    while (pool.length < n) {
      const orgId = `org_rt_${(orgs += 1)}`;
      await loadDemoOrg(env.db, orgId, env.scale.orgSize);
      const token = await tokenFor(env.db, orgId);
      pool = pool.concat((await reversibleEntries(env.db, orgId)).map((entryId) => ({ token, entryId })));
      env.log(`  round trip: loaded ${orgId} (${env.scale.orgSize}), ${pool.length} reversible entries in hand`);
    }
    return pool.splice(0, n);
  };
}

/** The floor: p50 of `n` sequential add→complete round trips of a job that inserts one document. */
export async function measureFloor(env: BenchEnv, n: number): Promise<number> {
  const connection = { url: env.redisUrl };
  const name = 'bench-floor';
  const queue = new Queue(name, { connection, prefix: env.queuePrefix });
  const events = new QueueEvents(name, { connection, prefix: env.queuePrefix });
  const floorDocs = env.db.collection<{ _id: string; at: string }>('bench_floor');
  // A random _id, not the job id: obliterate() at the end of a run resets BullMQ's id counter, so the next repeat would reuse ids.
  const worker = new Worker(
    name,
    async () => {
      await floorDocs.insertOne({ _id: randomUUID(), at: new Date().toISOString() });
    },
    { connection, prefix: env.queuePrefix },
  );
  try {
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
    const times: number[] = [];
    for (let i = 0; i < n + 20; i += 1) {
      const ms = await timed(async () => {
        await (await queue.add('floor', {}, { removeOnComplete: true })).waitUntilFinished(events, 10_000);
      });
      if (i >= 20) times.push(ms);
    }
    return median(times);
  } finally {
    await worker.close();
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

export function roundTripRun(env: BenchEnv): () => Promise<RoundTripResult> {
  const entries = entrySource(env);
  return async () => {
    const { stagings, concurrentStagings } = env.scale;
    const floor = await measureFloor(env, stagings);
    const work = await entries(stagings + concurrentStagings + 10);
    // Warm-up: connections, prepared statements, JIT.
    for (const { token, entryId } of work.splice(0, 10))
      expectStaged(await call(env.baseUrl, token, 'POST', reversePath(entryId), { reason: 'bench' }), 'reversal stage');
    const times: number[] = [];
    await env.profile('round trip, sequential', async () => {
      for (const { token, entryId } of work.splice(0, stagings)) {
        const c = await call(env.baseUrl, token, 'POST', reversePath(entryId), { reason: 'bench' });
        expectStaged(c, 'reversal stage');
        times.push(c.ms);
      }
    });
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let next = work.shift(); next; next = work.shift()) {
          expectStaged(
            await call(env.baseUrl, next.token, 'POST', reversePath(next.entryId), { reason: 'bench' }),
            'reversal stage (8 clients)',
          );
        }
      }),
    );
    const rps = concurrentStagings / ((performance.now() - start) / 1000);
    const p50 = median(times);
    return {
      p50_ms: p50,
      p95_ms: quantile(times, 0.95),
      floor_p50_ms: floor,
      ratio_p50: p50 / floor,
      throughput_8_rps: round(rps),
    };
  };
}
