// Worker scaling: jobs/s of link repair jobs (a repair of 10k transactions
// each) with one and with two worker processes. The jobs go straight onto the
// stage queue: this measures the workers, not the API. After the first job
// stages the plan, every later one plans the same repair again and answers
// that operation (`existing`): the same work each time. On one machine these
// jobs are bound by the store (FerretDB), so a second row, `cpu_bound_ratio`,
// is the same ratio for the worker's own part alone: pure repair plans of a
// 10k-transaction repair in one and in two processes started as workers are
// (worker/node-flags.ts), in paired rounds (bench/lib/cpu-bound-scaling.ts),
// `cpu_bound_ratio_v8_defaults` the same with V8's default helper threads,
// and `machine_ratio` the same rounds for a loop that allocates nothing:
// what the machine gives two processes at all (docs/design/performance.md
// "Worker scaling").
import { randomBytes } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { cpus } from 'node:os';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';
import { STAGE_QUEUE, type AnyStageJobData, type StageJobReturn } from '../../shared/queue/stage-jobs.js';
import { load } from '../lib/data.js';
import { BIG_ACCOUNT, BIG_COUNTERPARTY, bigRepairBooks } from '../lib/repair-books.js';
import { untilQuiet } from '../lib/cpu-split.js';
import { PairedRounds, benchChild } from '../lib/cpu-bound-scaling.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';

const CPU_BOUND_ROUNDS = 5;
/** Pure plans per process and sample, per scaling job: 120 plans of 10k transactions, about three seconds. */
const CPU_BOUND_PLANS_PER_JOB = 15;
/** The machine row's loop: about two seconds at the full size (planSize 100k). */
const ALU_ITERATIONS_PER_PLANNED_TRANSACTION = 15_000;

export interface WorkerScalingResult {
  one_jobs_s: number;
  two_jobs_s: number;
  ratio: number;
  cores: number;
  /** Pure plans/s with two processes ÷ with one, each started with the worker's V8 flags (bench/lib/plan-process.ts). */
  cpu_bound_ratio: number;
  /** The same with V8's defaults (garbage collection and compilation on helper threads). */
  cpu_bound_ratio_v8_defaults: number;
  /** cpu_bound_ratio's rounds, each one's ratio (its spread). */
  cpu_bound_round_ratios: number[];
  /** The same paired rounds for an integer loop that allocates nothing (bench/lib/alu-process.ts): what the machine gives two processes at all. */
  machine_ratio: number;
  /** Store CPU (FerretDB + PostgreSQL) per 10k-scope job with one worker, in seconds: the figure `repair/store_cpu_s_10k_scope`. */
  store_cpu_s_per_job: number | null;
}

export async function measureWorkerScaling(
  env: BenchEnv,
  repeat: number,
  setWorkers: (count: number) => Promise<void>,
): Promise<WorkerScalingResult> {
  const orgId = 'org_ws';
  const { scalingRepairSize, scalingJobs } = env.scale;
  const loadMs = await timed(() => load(env.db, bigRepairBooks(orgId, scalingRepairSize)));
  env.log(`  worker scaling: loaded a ${scalingRepairSize}-transaction repair in ${(loadMs / 1000).toFixed(1)} s`);
  const connection = { url: env.redisUrl };
  const queue = new Queue<AnyStageJobData, StageJobReturn>(STAGE_QUEUE, { connection, prefix: env.queuePrefix });
  const events = new QueueEvents(STAGE_QUEUE, { connection, prefix: env.queuePrefix });
  await events.waitUntilReady();
  events.setMaxListeners(1000);
  const runJobs = async (n: number): Promise<number> =>
    timed(async () => {
      const jobs = await Promise.all(
        Array.from({ length: n }, () =>
          queue.add(
            'ledger_link_repair.stage',
            {
              operation: 'ledger_link_repair.stage',
              request_id: `req_bench_${randomBytes(6).toString('hex')}`,
              org_id: orgId,
              actor: 'bench',
              requested_at: new Date().toISOString(),
              idempotency_key: null,
              may_review: true,
              input: { bank_account_id: BIG_ACCOUNT(orgId), counterparty_id: BIG_COUNTERPARTY(orgId) },
            },
            { jobId: `bench_${randomBytes(8).toString('hex')}`, attempts: 1, removeOnComplete: true },
          ),
        ),
      );
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
    // The worker's own part, with no store: no worker process runs meanwhile,
    // and the rounds start once the machine is quiet. why: the store-bound
    // jobs above leave PostgreSQL and the workers busy for a while (0.1–0.3
    // cores in one run), and on two cores such work is taken from the
    // two-process runs alone.
    await setWorkers(0);
    await untilQuiet(env.log, 'worker scaling, CPU-bound', env.scale.quietWaitMs);
    // Paired rounds (bench/lib/cpu-bound-scaling.ts), the two flag sets and
    // the machine's own loop alternated within each round, each going first
    // in turn, so the machine's moods fall on all of them alike.
    const plans = CPU_BOUND_PLANS_PER_JOB * scalingJobs;
    const planJob = { script: benchChild('plan-process'), args: [String(planSize), String(plans)], units: plans };
    const aluJob = {
      script: benchChild('alu-process'),
      args: [String(ALU_ITERATIONS_PER_PLANNED_TRANSACTION * env.scale.planSize)],
      units: 1,
    };
    const series = {
      worker: new PairedRounds(planJob, WORKER_NODE_FLAGS),
      v8_defaults: new PairedRounds(planJob, []),
      machine: new PairedRounds(aluJob, WORKER_NODE_FLAGS),
    };
    const order = ['worker', 'v8_defaults', 'machine'] as const;
    for (let i = 0; i < Math.max(repeat, CPU_BOUND_ROUNDS); i += 1) {
      for (const name of i % 2 === 0 ? order : [...order].reverse()) await series[name].round();
    }
    const cpu = {
      worker: series.worker.finish(),
      v8_defaults: series.v8_defaults.finish(),
      machine: series.machine.finish(),
    };
    for (const flags of ['worker', 'v8_defaults'] as const) {
      env.log(
        `  worker scaling, CPU-bound (pure plans of ${planSize} transactions, ${flags === 'worker' ? `the worker's flags ${WORKER_NODE_FLAGS.join(' ')}` : 'V8 defaults'}): ${cpu[flags].one} / ${cpu[flags].two} plans/s with 1 / 2 processes; rounds ${cpu[flags].round_ratios.join(', ')}×, median ${cpu[flags].ratio}×`,
      );
    }
    env.log(
      `  worker scaling, the machine (an allocation-free loop, 1 / 2 processes): rounds ${cpu.machine.round_ratios.join(', ')}×, median ${cpu.machine.ratio}×`,
    );
    return {
      one_jobs_s: round(one),
      two_jobs_s: round(two),
      ratio: round(two / one),
      cores: cpus().length,
      cpu_bound_ratio: cpu.worker.ratio,
      cpu_bound_ratio_v8_defaults: cpu.v8_defaults.ratio,
      cpu_bound_round_ratios: cpu.worker.round_ratios,
      machine_ratio: cpu.machine.ratio,
      store_cpu_s_per_job: storeCpu,
    };
  } finally {
    await setWorkers(1);
    await events.close();
    await queue.close();
  }
}
