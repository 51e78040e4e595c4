// The API and worker processes the bench measures: real entry points
// (dist/api/server.js, dist/worker/main.js) as child processes, so their
// peak resident memory can be read from the kernel (VmHWM). Their JSON logs
// (LOG_LEVEL=warn, warnings and errors only, unless BENCH_LOG_LEVEL says) go to .bookstage/logs/bench-*.log,
// named when a process exits with an error: a process that dies mid-run says why.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { freePort, waitForPort } from '../../scripts/services/ports.js';
import { STAGE_QUEUE } from '../../shared/queue/stage-jobs.js';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const logDir = join(distRoot, '..', '.bookstage', 'logs');

export interface Service {
  child: ChildProcess;
  stop(): Promise<void>;
  peakRssMb(): number;
}

/** Peak resident set of a live process in MB (Linux /proc; NaN elsewhere). */
export function peakRssMb(pid: number | undefined): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function service(child: ChildProcess): Service {
  let peak = Number.NaN;
  const sample = (): void => {
    const now = peakRssMb(child.pid);
    if (!Number.isNaN(now)) peak = now;
  };
  return {
    child,
    peakRssMb: () => {
      sample();
      return peak;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        sample();
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * BENCH_CPU_PROF_DIR: each API and worker process writes a V8 CPU profile there when it stops (`--cpu-prof`).
 * BENCH_PERF_MAP=1: each writes /tmp/perf-PID.map (`--perf-basic-prof`), so `perf record` names their JavaScript.
 * why both: a V8 profile samples the thread's wall time, and a write that wakes its peer can be charged for the
 * time the peer then runs on the same core; `perf` counts CPU cycles only.
 */
function profileArgs(env: NodeJS.ProcessEnv): string[] {
  return [
    ...(env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', env.BENCH_CPU_PROF_DIR] : []),
    ...(env.BENCH_PERF_MAP === '1' ? ['--perf-basic-prof'] : []),
  ];
}

function launch(entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  // The worker runs as deployed, with its V8 flags (worker/node-flags.ts).
  const flags = entry.startsWith('worker/') ? WORKER_NODE_FLAGS : [];
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `bench-${entry.split('/')[0]}-${process.pid}-${Date.now()}.log`);
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...flags, ...profileArgs(env), join(distRoot, entry)], {
    env,
    stdio: ['ignore', out, 'inherit'],
  });
  // The child holds its own copy of the descriptor.
  closeSync(out);
  child.once('exit', (code, signal) => {
    if (code) process.stderr.write(`bench: ${entry} exited with ${code ?? signal} (its log: ${logFile})\n`);
  });
  return child;
}

export async function startApiProcess(env: NodeJS.ProcessEnv): Promise<Service & { baseUrl: string }> {
  const port = await freePort();
  const child = launch('api/server.js', { ...env, PORT: String(port) });
  await waitForPort(port, 60_000, 'the API');
  return { ...service(child), baseUrl: `http://127.0.0.1:${port}` };
}

/** Start `count` worker processes and wait until the stage queue sees them all. */
export async function startWorkerProcesses(
  env: NodeJS.ProcessEnv,
  count: number,
  redis: { url: string; prefix: string },
): Promise<Service[]> {
  const queue = new Queue(STAGE_QUEUE, { connection: { url: redis.url }, prefix: redis.prefix });
  try {
    const before = await queue.getWorkersCount();
    const workers = Array.from({ length: count }, () => service(launch('worker/main.js', env)));
    const deadline = Date.now() + 60_000;
    while ((await queue.getWorkersCount()) < before + count) {
      if (Date.now() > deadline) throw new Error(`${count} worker process(es) did not connect within 60 s`);
      if (workers.some((w) => w.child.exitCode !== null)) throw new Error('a worker process exited at start');
      await new Promise((r) => setTimeout(r, 100));
    }
    return workers;
  } finally {
    await queue.close();
  }
}
