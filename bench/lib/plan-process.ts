// One process of the CPU-bound worker-scaling figure
// (bench/sections/worker-scaling.ts), started as a worker is (with
// worker/node-flags.ts's V8 flags) or with V8's defaults: builds a big repair
// repair's input, says `ready`, and on `go` plans it `plans` times, then says
// `done`. No store, no queue: the worker's own part of a job whose store
// cost is small.
import { planLinkRepair } from '../../shared/kinds/ledger-link-repair/plan.js';
import { bigRepairInput } from './repair-books.js';

const size = Number(process.argv[2]);
const plans = Number(process.argv[3]);
const input = bigRepairInput('org_cpu_bound', size);
planLinkRepair(input); // warm-up
process.once('message', () => {
  for (let i = 0; i < plans; i += 1) planLinkRepair(input);
  process.send!('done');
});
process.send!('ready');
