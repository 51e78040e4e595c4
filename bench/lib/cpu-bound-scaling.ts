// The CPU-bound worker-scaling figure (bench/sections/worker-scaling.ts):
// how many more pure plans two processes make than one, in rounds that pair
// every two-process sample with one-process samples taken right around it.
//
// why paired rounds (since 2026-11-28): on this shared VM the speed of one
// process alone moves by a quarter or more between samples a minute apart;
// an allocation-free integer loop gave 1.97–2.02× in one sitting, and 0.46×
// for nine seconds of another (the machine row says what it gives). The
// figure used to be the median of the two-process samples ÷ the median of
// the one-process ones, each sample about a second long: the host's drift
// between the two sets decided it (1.44–1.88× on the same plan code). Now
// each round runs one, two, two, one process (A B B A), its ratio is the
// two samples of two ÷ the two samples of one, and the figure is the median
// of the rounds' ratios; each sample is three times longer.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, round } from './stats.js';

/** A child script of the ready / go / done protocol (plan-process.ts, alu-process.ts) and its arguments. */
export interface ScalingJob {
  script: string;
  args: string[];
  /** Units of work each process does: plans/s is processes × units ÷ seconds. */
  units: number;
}

export interface ScalingRounds {
  /** Median of the rounds' ratios: the figure. */
  ratio: number;
  /** Each round's (two + two) ÷ (one + one), in the order run. */
  round_ratios: number[];
  /** Median units/s with one and with two processes, for the log. */
  one: number;
  two: number;
}

/** A child script of this folder, by its name without extension. */
export function benchChild(name: string): string {
  return fileURLToPath(new URL(`./${name}.js`, import.meta.url));
}

/** Collects A B B A rounds of `job` run with `flags`; `finish` gives the figure. */
export class PairedRounds {
  private readonly ratios: number[] = [];
  private readonly ones: number[] = [];
  private readonly twos: number[] = [];

  constructor(
    private readonly job: ScalingJob,
    private readonly flags: readonly string[],
  ) {}

  /** One round: one, two, two, one process. */
  async round(): Promise<void> {
    const a = await unitsPerSecond(this.job, 1, this.flags);
    const b = await unitsPerSecond(this.job, 2, this.flags);
    const c = await unitsPerSecond(this.job, 2, this.flags);
    const d = await unitsPerSecond(this.job, 1, this.flags);
    this.ratios.push((b + c) / (a + d));
    this.ones.push(a, d);
    this.twos.push(b, c);
  }

  finish(): ScalingRounds {
    return {
      ratio: round(median(this.ratios)),
      round_ratios: this.ratios.map(round),
      one: round(median(this.ones)),
      two: round(median(this.twos)),
    };
  }
}

/** Units per second of `processes` processes (node with `flags`) each doing `job.units`, timed from when every one has built its input. */
async function unitsPerSecond(job: ScalingJob, processes: number, flags: readonly string[]): Promise<number> {
  const children = Array.from({ length: processes }, () =>
    fork(job.script, job.args, { execArgv: [...flags], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
  );
  try {
    const said = (c: ChildProcess, what: string): Promise<void> =>
      new Promise((resolve, reject) => {
        c.once('error', reject);
        c.once('exit', (code) => reject(new Error(`a scaling process exited with ${code} before it said ${what}`)));
        c.on('message', (m) => {
          if (m === what) resolve();
        });
      });
    await Promise.all(children.map((c) => said(c, 'ready')));
    const done = children.map((c) => said(c, 'done'));
    const start = performance.now();
    for (const c of children) c.send('go');
    await Promise.all(done);
    return (processes * job.units) / ((performance.now() - start) / 1000);
  } finally {
    for (const c of children) c.kill();
  }
}
