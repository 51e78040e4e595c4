// Worker scaling: jobs/s of link repair jobs (a scope of 10k transactions
// each) with one and with two worker processes. The jobs go straight onto the
// stage queue: this measures the workers, not the API. After the first job
// stages the plan, every later one plans the same scope again and answers
// that operation (`existing`): the same work each time. On one machine these
// jobs are bound by the store (FerretDB), so a second row, `cpu_bound_ratio`,
// is the same ratio for the worker's own part alone: pure repair plans of a
// 10k-transaction scope in one and in two threads.
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import { STAGE_QUEUE, type AnyStageJobData, type StageJobReturn } from '../../shared/queue/stage-jobs.js';
import { load } from '../lib/data.js';
import { BIG_ACCOUNT, BIG_COUNTERPARTY, bigScopeBooks } from '../lib/repair-books.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

export interface WorkerScalingResult {
  one_jobs_s: number; two_jobs_s: number; ratio: number; cores: number;
  /** Pure plans/s with two threads ÷ with one (bench/lib/plan-thread.ts). */
  cpu_bound_ratio: number;
  /** Store CPU (FerretDB + PostgreSQL) per 10k-scope job with one worker, in seconds: the figure `repair/store_cpu_s_10k_scope`. */
  store_cpu_s_per_job: number | null;
}

export async function measureWorkerScaling(env: BenchEnv, repeat: number, setWorkers: (count: number) => Promise<void>): Promise<WorkerScalingResult> {
  const orgId = 'org_ws';
  const { scalingScope, scalingJobs } = env.scale;
  const loadMs = await timed(() => load(env.db, bigScopeBooks(orgId, scalingScope)));
  env.log(`  worker scaling: loaded a ${scalingScope}-transaction scope in ${(loadMs / 1000).toFixed(1)} s`);
  const connection = { url: env.redisUrl };
  const queue = new Queue<AnyStageJobData, StageJobReturn>(STAGE_QUEUE, { connection, prefix: env.queuePrefix });
  const events = new QueueEvents(STAGE_QUEUE, { connection, prefix: env.queuePrefix });
  await events.waitUntilReady();
  events.setMaxListeners(1000);
  const runJobs = async (n: number): Promise<number> => timed(async () => {
    const jobs = await Promise.all(Array.from({ length: n }, () => queue.add('ledger_link_repair.stage', {
      operation: 'ledger_link_repair.stage', request_id: `req_bench_${randomBytes(6).toString('hex')}`, org_id: orgId, actor: 'bench',
      requested_at: new Date().toISOString(), idempotency_key: null, may_review: true,
      input: { bank_account_id: BIG_ACCOUNT(orgId), counterparty_id: BIG_COUNTERPARTY(orgId) },
    }, { jobId: `bench_${randomBytes(8).toString('hex')}`, attempts: 1, removeOnComplete: true })));
    await Promise.all(jobs.map((j) => j.waitUntilFinished(events, 600_000)));
  });
  try {
    const rates: Record<1 | 2, number[]> = { 1: [], 2: [] };
    for (const count of [1, 2] as const) {
      await setWorkers(count);
      await runJobs(count); // warm-up (the first one stages the plan)
      await env.profile(`worker scaling, ${count} process${count === 1 ? '' : 'es'}`, async () => {
        for (let i = 0; i < repeat; i += 1) rates[count].push(scalingJobs / ((await runJobs(scalingJobs)) / 1000));
      });
    }
    const one = median(rates[1]);
    const two = median(rates[2]);
    const store = env.split('worker scaling, 1 process');
    const storeCpu = store ? round((store.cpu_s.ferretdb + store.cpu_s.postgres) / (repeat * scalingJobs)) : null;
    const planSize = Math.max(100, Math.round(env.scale.planSize / 10));
    const cpuRates: Record<1 | 2, number[]> = { 1: [], 2: [] };
    for (let i = 0; i < repeat; i += 1) for (const threads of [1, 2] as const) cpuRates[threads].push(await planRate(threads, planSize, 2 * scalingJobs));
    const cpuBound = round(median(cpuRates[2]) / median(cpuRates[1]));
    env.log(`  worker scaling, CPU-bound (pure plans of ${planSize} transactions): ${round(median(cpuRates[1]))} / ${round(median(cpuRates[2]))} plans/s with 1 / 2 threads`);
    return { one_jobs_s: round(one), two_jobs_s: round(two), ratio: round(two / one), cores: cpus().length, cpu_bound_ratio: cpuBound, store_cpu_s_per_job: storeCpu };
  } finally {
    await setWorkers(1);
    await events.close();
    await queue.close();
  }
}

/** Plans per second of `threads` threads each planning `plans` times, timed from when every thread has built its input. */
async function planRate(threads: number, size: number, plans: number): Promise<number> {
  const url = new URL('../lib/plan-thread.js', import.meta.url);
  const workers = Array.from({ length: threads }, () => new Worker(url, { workerData: { size, plans } }));
  try {
    const said = (w: Worker, what: string): Promise<void> => new Promise((resolve, reject) => {
      w.once('error', reject);
      w.on('message', (m) => { if (m === what) resolve(); });
    });
    await Promise.all(workers.map((w) => said(w, 'ready')));
    const done = workers.map((w) => said(w, 'done'));
    const start = performance.now();
    for (const w of workers) w.postMessage('go');
    await Promise.all(done);
    return (threads * plans) / ((performance.now() - start) / 1000);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
