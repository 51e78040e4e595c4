// The V8 flags every worker process is started with: `node
// --single-threaded dist/worker/main.js` (package.json `start:worker`, the
// compose file, the demo, the bench and the test stacks all take them from
// here or check them against it: test/ops/worker-node-flags.test.ts).
//
// why --single-threaded: a worker is sized one process per core
// (docs/operating/scaling.md "Worker replicas"). By default V8 also
// collects garbage and compiles on helper threads, so one worker planning
// alone used about 1.2 cores, and two on two cores took the helpers' share
// from each other: pure repair plans scaled 1.5-1.6x from one worker to two.
// Single-threaded, the same plans scaled 1.96x, two workers planned at least
// as fast as with helpers, and the mixed load's API + worker CPU per call
// fell about 7% (docs/design/performance.md "Worker scaling"). The price: a
// lone worker on an otherwise idle machine plans about 10% slower.
export const WORKER_NODE_FLAGS: readonly string[] = ['--single-threaded'];
