// One process of the worker-scaling section's machine row
// (bench/lib/cpu-bound-scaling.ts): an integer loop that allocates nothing
// and touches no memory, in the ready / go / done protocol of
// plan-process.ts. What it gives two processes is what the machine gives
// them at all; the plans' figure is read against it.
const iterations = Number(process.argv[2]);
process.once('message', () => {
  let x = 0;
  for (let i = 0; i < iterations; i += 1) x = (Math.imul(x, 1103515245) + i) | 0;
  // why keep x: a result nobody reads could let the compiler drop the loop.
  (globalThis as { aluResult?: number }).aluResult = x;
  process.send!('done');
});
process.send!('ready');
