// Timing of a synchronous, CPU-bound call: wall and process CPU time per run
// (medians), with the garbage of earlier runs swept first when the process
// (--expose-gc is switched on here if needed), and the time spent in that sweep reported
// apart.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { median, round } from './stats.js';

/**
 * The engine's full collection, exposed at run time when the process was not
 * started with --expose-gc (the flag only takes effect for new contexts).
 */
function collector(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (() => void) | undefined;
}

export interface PlanTiming {
  wall_ms: number;
  cpu_ms: number;
  /** Median time of the sweep before each run, not charged to the run; null if gc was unavailable. */
  gc_before_ms: number | null;
  runs_wall_ms: number[];
}

/**
 * `rewarm`: after each sweep, one untimed run before the timed one. why: the
 * sweep is a forced collection, and after it the hidden classes that only
 * the last run's objects had were gone (V8's own collections keep such
 * classes through a few more, --retain-maps-for-n-gc), and with them the
 * code compiled against them (`--trace-deopt`: "weak objects"). Under the worker's --single-threaded
 * every timed run then compiled its functions again on the main thread:
 * 60–150 ms of a 100k plan by `--trace-opt`, against none between plans
 * that only met V8's own collections. The untimed run compiles them again,
 * as a worker that has planned before has them; its young garbage is the
 * timed run's to collect, as a worker's previous job's would be.
 */
export function timePlan(run: () => unknown, repeat: number, rewarm = false): PlanTiming {
  const collect = collector();
  const wall: number[] = [];
  const cpu: number[] = [];
  const sweeps: number[] = [];
  for (let i = 0; i < repeat; i += 1) {
    if (collect) {
      const s = performance.now();
      collect();
      sweeps.push(performance.now() - s);
      if (rewarm) run();
    }
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    run();
    const w = performance.now() - w0;
    const c = process.cpuUsage(c0);
    wall.push(w);
    cpu.push((c.user + c.system) / 1000);
  }
  return {
    wall_ms: round(median(wall)),
    cpu_ms: round(median(cpu)),
    gc_before_ms: collect ? round(median(sweeps)) : null,
    runs_wall_ms: wall.map(round),
  };
}
