// Link repair at growing org sizes for the same subject size (the job should
// grow with its record set, not with the org), and the pure plan over 100k
// transactions.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';
import { call, repairPath } from '../lib/http.js';
import { loadDemoOrg, repairPairs, tokenFor, type RepairPair } from '../lib/data.js';
import type { PlanTiming } from '../lib/plan-timing.js';
import { untilQuiet } from '../lib/cpu-split.js';
import { median, round, timed } from '../lib/stats.js';
import type { BenchEnv } from './round-trip.js';
import { measureRepairApply } from './repair-apply.js';

export interface RepairResult {
  job_ms: Record<string, number | null>;
  growth_1k_to_100k: number | null;
  /** The pure plan in a process of its own started with the worker's V8 flags (worker/node-flags.ts), as a worker plans. */
  plan_100k_ms: number | null;
  /** The same in a process with V8's defaults (garbage collection and compilation on helper threads). */
  plan_100k_ms_v8_defaults?: number | null;
  /** Filled in by the worker-scaling section, whose jobs are 10k-transaction repairs (bench/run.ts). */
  store_cpu_s_10k_scope: number | null;
  /** A staged 10k-transaction repair, approved and applied: seconds from the apply call to `applied`, the median of `repeat` (bench/sections/repair-apply.ts). */
  apply_s_10k_scope?: number | null;
  /** The same once twenty such repairs were applied in other organisations. */
  apply_s_10k_scope_loaded?: number | null;
  apply_s_10k_scope_runs?: number[];
  apply_s_10k_scope_loaded_runs?: number[];
}

/** Pairs this close in size count as the same size: a demo org has only a few of any one size. */
const SIZE_BAND = 1;

/**
 * The repair size (transactions per account and counterparty, ± SIZE_BAND)
 * every org has most of; each org's pairs of that size.
 */
function sameSizePairs(all: Map<number, RepairPair[]>[]): { size: number; pairs: RepairPair[][] } {
  const near = (m: Map<number, RepairPair[]>, size: number): RepairPair[] =>
    [...m.entries()].filter(([s]) => Math.abs(s - size) <= SIZE_BAND).flatMap(([, pairs]) => pairs);
  let best = { size: 0, pairs: [] as RepairPair[][], available: 0 };
  for (const size of all[0]!.keys()) {
    const pairs = all.map((m) => near(m, size));
    const available = Math.min(...pairs.map((x) => x.length));
    if (available > best.available) best = { size, pairs, available };
  }
  if (best.available < 2) throw new Error('no repair size common to every org size');
  return best;
}

export async function measureRepair(env: BenchEnv, sizes: number[], repeat: number): Promise<RepairResult> {
  const orgs: { size: number; token: string; pairs: Map<number, RepairPair[]> }[] = [];
  for (const size of sizes) {
    const orgId = `org_rp_${size}`;
    const loadMs = await timed(() => loadDemoOrg(env.db, orgId, size));
    orgs.push({ size, token: await tokenFor(env.db, orgId), pairs: await repairPairs(env.db, orgId) });
    env.log(`  repair: loaded ${orgId} in ${(loadMs / 1000).toFixed(1)} s`);
  }
  const same = sameSizePairs(orgs.map((o) => o.pairs));
  // One pair each for the warm-up and every call: a pair staged once is held by its operation.
  const calls = Math.min(repeat * env.scale.repairCalls, Math.min(...same.pairs.map((x) => x.length)) - 1);
  env.log(`  repair: ${calls} calls per org size, each a repair of ${same.size} ± ${SIZE_BAND} transactions`);
  const jobMs: Record<string, number | null> = {};
  for (const [at, org] of orgs.entries()) {
    const pairs = same.pairs[at]!;
    // Warm-up on a repair of its own.
    await stageRepair(env, org.token, pairs.pop()!);
    const times: number[] = [];
    await env.profile(`repair job, org size ${org.size}`, async () => {
      for (let i = 0; i < calls; i += 1) times.push(await stageRepair(env, org.token, pairs.pop()!));
    });
    jobMs[String(org.size)] = round(median(times));
  }
  const applied = await env.profile('repair apply, 10k-transaction scope', () =>
    measureRepairApply(
      env,
      env.scale.scalingRepairSize,
      Number(process.env.BENCH_APPLY_LOADED_OPS ?? env.scale.applyLoadedOps),
      repeat,
    ),
  );
  const first = jobMs[String(sizes[0])];
  const last = jobMs[String(sizes[sizes.length - 1])];
  // The plan alone, in a process of its own (bench/plan-profile.ts): its
  // input is built first; before each timed run the garbage is swept
  // (reported apart) and one untimed run compiles the plan again, which the
  // sweep had made V8 throw away (bench/lib/plan-timing.ts, `rewarm`). why a
  // process of its own: plans run in a worker, started with the worker's V8
  // flags; in the bench's process they met its heap (the loaded books, the
  // HTTP clients) and V8's helper threads, which a worker does not have.
  // why quiet first and seven runs (2026-11-28): the plan was timed right
  // after the 100k organisation's load and jobs, while PostgreSQL's
  // autovacuum still ran (the repair jobs' "other" share, 14–33%), and the
  // median of five such runs landed either side of 300 ms from run to run.
  await untilQuiet(env.log, 'repair, pure plan', env.scale.quietWaitMs);
  const runs = Math.max(7, repeat);
  const asWorker = await planAlone(WORKER_NODE_FLAGS, env.scale.planSize, runs);
  const defaults = await planAlone([], env.scale.planSize, runs);
  for (const [name, plan] of [
    ["the worker's V8 flags", asWorker],
    ["V8's defaults", defaults],
  ] as const) {
    env.log(
      `  repair: pure plan of ${env.scale.planSize} transactions, ${name}: median ${plan.wall_ms} ms wall, ${plan.cpu_ms} ms CPU, gc before each run ${plan.gc_before_ms ?? '-'} ms`,
    );
  }
  return {
    job_ms: jobMs,
    growth_1k_to_100k:
      sizes.includes(1000) && sizes.includes(100_000) && first && last
        ? round(jobMs['100000']! / jobMs['1000']!)
        : null,
    plan_100k_ms: asWorker.wall_ms,
    plan_100k_ms_v8_defaults: defaults.wall_ms,
    store_cpu_s_10k_scope: null,
    apply_s_10k_scope: applied.apply_s,
    apply_s_10k_scope_loaded: applied.apply_s_loaded,
    apply_s_10k_scope_runs: applied.apply_s_runs,
    apply_s_10k_scope_loaded_runs: applied.apply_s_loaded_runs,
  };
}

/** bench/plan-profile.ts in a child process started with `flags`: its timing line. */
async function planAlone(flags: readonly string[], size: number, runs: number): Promise<PlanTiming> {
  const script = fileURLToPath(new URL('../plan-profile.js', import.meta.url));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...flags, script, String(size), String(runs), '--rewarm'],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as PlanTiming;
}

async function stageRepair(env: BenchEnv, token: string, pair: RepairPair): Promise<number> {
  const c = await call(env.baseUrl, token, 'POST', repairPath, {
    bank_account_id: pair.bank_account_id,
    counterparty_id: pair.counterparty_id,
  });
  if (c.status !== 200 && c.status !== 201)
    throw new Error(`link repair: HTTP ${c.status} ${JSON.stringify(c.body).slice(0, 300)}`);
  return c.ms;
}
