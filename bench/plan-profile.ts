// The pure link-repair plan over one big record set, timed alone: the input is
// built first and garbage is swept before each timed run
// (bench/lib/plan-timing.ts), so neither building the input nor the previous
// run's garbage is charged to the plan. Prints one JSON line. To profile:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof dist/bench/plan-profile.js [n] [repeat]
import { planLinkRepair } from '../shared/kinds/ledger-link-repair/plan.js';
import { bigRepairInput } from './lib/repair-books.js';
import { timePlan } from './lib/plan-timing.js';

const n = Number(process.argv[2] ?? 100_000);
const repeat = Number(process.argv[3] ?? 7);
// `--rewarm`: an untimed run after each sweep (bench/lib/plan-timing.ts), as the bench's figure is taken.
const rewarm = process.argv.includes('--rewarm');
const input = bigRepairInput('org_plan', n);
const result = planLinkRepair(input);
const summary = result.plan ? result.plan.summary : null;
const figures = timePlan(() => planLinkRepair(input), repeat, rewarm);
console.log(
  JSON.stringify({ n, repeat, rewarm, outcome: result.outcome, plan_hash: result.plan_hash, summary, ...figures }),
);
