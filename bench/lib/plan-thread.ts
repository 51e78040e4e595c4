// One worker thread of the CPU-bound worker-scaling figure
// (bench/sections/worker-scaling.ts): builds a big repair scope's input, says
// `ready`, and on `go` plans it `plans` times, then says `done`. No store, no
// queue: the worker's own part of a job whose store cost is small.
import { parentPort, workerData } from 'node:worker_threads';
import { planLinkRepair } from '../../shared/domain/link-repair-plan.js';
import { bigScopeInput } from './repair-books.js';

const { size, plans } = workerData as { size: number; plans: number };
const input = bigScopeInput('org_cpu_bound', size);
planLinkRepair(input); // warm-up
parentPort!.once('message', () => {
  for (let i = 0; i < plans; i += 1) planLinkRepair(input);
  parentPort!.postMessage('done');
});
parentPort!.postMessage('ready');
