// The pure link-repair plan of two builds, A/B in one process: each build's
// planLinkRepair runs on the same 100k-transaction input (bench/lib/repair-books.ts),
// alternating A, B, A, B… with garbage swept before every run
// (bench/lib/plan-timing.ts), so a machine whose load moves during the
// measurement moves both figures alike. Prints one JSON line: each build's
// CPU and wall medians and plan_hash (they must be equal).
//   node dist/bench/plan-ab.js BEFORE_DIST AFTER_DIST [n] [rounds]
// where each *_DIST is a build's dist folder (e.g. a copy of main's).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LinkRepairInput, LinkRepairOutcome } from '../shared/kinds/ledger-link-repair/plan.js';
import { bigRepairInput } from './lib/repair-books.js';
import { timePlan } from './lib/plan-timing.js';

type Plan = (input: LinkRepairInput) => LinkRepairOutcome;

/** Where a build holds the planner: its kind folder, or shared/domain/ in builds before the kinds had folders. */
const PLANNER_PATHS = ['shared/kinds/ledger-link-repair/plan.js', 'shared/domain/link-repair-plan.js'];

async function load(dist: string): Promise<Plan> {
  const path = PLANNER_PATHS.map((p) => resolve(dist, p)).find((p) => existsSync(p));
  if (!path) throw new Error(`${dist} holds no link-repair planner (${PLANNER_PATHS.join(', ')})`);
  const url = pathToFileURL(path).href;
  const module = (await import(url)) as { planLinkRepair: Plan };
  return module.planLinkRepair;
}

const [beforeDist, afterDist] = process.argv.slice(2, 4);
if (!beforeDist || !afterDist) throw new Error('usage: plan-ab.js BEFORE_DIST AFTER_DIST [n] [rounds]');
const n = Number(process.argv[4] ?? 100_000);
const rounds = Number(process.argv[5] ?? 7);
const builds = { before: await load(beforeDist), after: await load(afterDist) };
const input = bigRepairInput('org_plan', n);

const hashes = { before: builds.before(input).plan_hash, after: builds.after(input).plan_hash }; // and warm-up
const cpu: Record<'before' | 'after', number[]> = { before: [], after: [] };
const wall: Record<'before' | 'after', number[]> = { before: [], after: [] };
for (let r = 0; r < rounds; r += 1) {
  for (const which of ['before', 'after'] as const) {
    const t = timePlan(() => builds[which](input), 1);
    cpu[which].push(t.cpu_ms);
    wall[which].push(t.wall_ms);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  JSON.stringify({
    n,
    rounds,
    before_cpu_ms_median: median(cpu.before),
    after_cpu_ms_median: median(cpu.after),
    before_wall_ms_median: median(wall.before),
    after_wall_ms_median: median(wall.after),
    plan_hash_before: hashes.before,
    plan_hash_after: hashes.after,
    same_hash: hashes.before === hashes.after,
    runs_cpu_ms: cpu,
  }),
);
