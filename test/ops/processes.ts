// API and worker processes of an ops test's own: a queue prefix of their own
// (so the shared stack's worker never takes their jobs), the shared stack's
// MongoDB and Redis, and the real entry points (dist/api/server.js,
// dist/worker/main.js) as child processes where signals matter.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApi, type ApiRuntime } from '../../api/runtime.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { stack } from '../helpers/stack.js';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';

// This file runs as dist/test/ops/processes.js.
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKER_MAIN = join(dist, 'worker', 'main.js');
const API_MAIN = join(dist, 'api', 'server.js');

/** The environment of an ops test's processes: the stack's servers, a prefix of its own, short takeover times. */
export async function opsEnv(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  await stack(); // sets MONGO_URL and REDIS_URL when the run did not
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return {
    ...env,
    QUEUE_PREFIX: `bst-ops-${randomBytes(4).toString('hex')}`,
    PORT: '0',
    LOG_LEVEL: 'info',
    WORKER_METRICS_PORT: '0',
    WORKER_LOCK_DURATION_MS: '3000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    STAGE_JOB_BACKOFF_MS: '200',
    RATE_LIMIT_REQUESTS: '10000000',
    RATE_LIMIT_AUTH_FAILURES: '10000000',
    ...extra,
  };
}

/** An API in this process (no signals needed): its URL and config. */
export async function inProcessApi(
  env: Record<string, string>,
): Promise<{ baseUrl: string; config: Config; close: () => Promise<void> }> {
  const config = loadConfig(env);
  const api: ApiRuntime = await startApi(config, createLogger('api', 'silent'));
  return { baseUrl: `http://127.0.0.1:${api.port}`, config, close: api.close };
}

export interface Child {
  process: ChildProcess;
  /** Its JSON log lines so far. */
  logs: string[];
  /** Parsed log lines whose `msg` is `msg`. */
  lines(msg: string): Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when a signal ended it) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a log line satisfies `match` (rejects after `ms`). */
  waitFor(match: (line: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  kill(signal: NodeJS.Signals): void;
}

const parse = (line: string): Record<string, unknown> => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { msg: line };
  }
};

function launch(main: string, env: Record<string, string>, flags: readonly string[] = []): Child {
  const child = spawn(process.execPath, [...flags, main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  const waiters: Array<{
    match: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      logs.push(line);
      const parsed = parse(line);
      for (const w of [...waiters])
        if (w.match(parsed)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(parsed);
        }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  // 'close', not 'exit': the process may exit before this side has read all of its output, and the tests read its lines once it has.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    logs,
    lines: (msg) => logs.map(parse).filter((l) => l.msg === msg),
    exited,
    waitFor(match, ms = 30_000) {
      const seen = logs.map(parse).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line within ${ms} ms:\n${logs.join('\n')}`)), ms);
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code ?? signal}) before the log line:\n${logs.join('\n')}`));
        });
      });
    },
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** A worker process, once it logged `worker ready`; `metricsPort` from that line. */
export async function startWorkerProcess(env: Record<string, string>): Promise<Child & { metricsPort: number }> {
  const child = launch(WORKER_MAIN, env, WORKER_NODE_FLAGS);
  const ready = await child.waitFor((l) => l.msg === 'worker ready');
  return Object.assign(child, { metricsPort: Number(ready.metrics_port) });
}

/** An API process, once it logged `api listening`; `baseUrl` from that line. */
export async function startApiProcess(env: Record<string, string>): Promise<Child & { baseUrl: string }> {
  const child = launch(API_MAIN, env);
  const ready = await child.waitFor((l) => l.msg === 'api listening');
  return Object.assign(child, { baseUrl: `http://127.0.0.1:${Number(ready.port)}` });
}

/** Stop whatever is still running (after a failed test), and wait for it. */
export async function stopAll(children: Child[]): Promise<void> {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
}
