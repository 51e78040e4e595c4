// Servers a fault test restarts itself, on a fixed port so the clients find
// them again: a Redis with AOF on, and a FerretDB on the suite's PostgreSQL
// (its data lives there, so a FerretDB restart loses nothing).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import { ensureFerretBinary } from '../../scripts/services/ferretdb.js';
import { freePort, waitForPort } from '../../scripts/services/ports.js';
import { isOurProcess, spawnDetached, stopProcess } from '../../scripts/services/processes.js';
import { ensureRedisInstalled } from '../../scripts/services/redis.js';

export interface Restartable {
  port: number;
  url: string;
  /** SIGKILL (a crash) or SIGTERM (a clean stop), then the same server again on the same port and data. */
  restart(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  close(): Promise<void>;
}

function restartable(name: string, dir: string, port: number, url: string, launch: () => Promise<number>): Restartable {
  let pid: number | null = null;
  const stop = async (signal: 'SIGKILL' | 'SIGTERM'): Promise<void> => {
    if (pid === null) return;
    if (signal === 'SIGKILL' && isOurProcess(pid, name)) process.kill(pid, 'SIGKILL');
    await stopProcess(pid, name);
    pid = null;
  };
  const self: Restartable & { start(): Promise<void> } = {
    port,
    url,
    async start() {
      pid = await launch();
    },
    async restart(signal) {
      await stop(signal);
      pid = await launch();
    },
    async close() {
      await stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Redis with every write in the append-only file before it is acknowledged (appendfsync always). */
export async function ownRedisWithAof(): Promise<Restartable> {
  const bin = ensureRedisInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-faults-redis-'));
  const port = await freePort();
  const launch = async (): Promise<number> => {
    const pid = spawnDetached(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--daemonize',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      join(dir, 'redis.log'),
    );
    await waitForPort(port, 15_000, 'redis-server');
    return pid;
  };
  const r = restartable('redis-server', dir, port, `redis://127.0.0.1:${port}`, launch);
  await (r as Restartable & { start(): Promise<void> }).start();
  return r;
}

/** A FerretDB of the test's own on the PostgreSQL behind FERRETDB_POSTGRES_URL; null when there is none (servers given by URL, Docker). */
export async function ownFerretDb(): Promise<Restartable | null> {
  const postgresUrl = process.env.FERRETDB_POSTGRES_URL;
  if (!postgresUrl) return null;
  const binary = ensureFerretBinary(join(projectRoot, '.cache'));
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-faults-ferretdb-'));
  const port = await freePort();
  let n = 0;
  const launch = async (): Promise<number> => {
    n += 1;
    const state = join(dir, `state-${n}`);
    mkdirSync(state);
    const pid = spawnDetached(
      binary,
      [
        '--handler=postgresql',
        `--postgresql-url=${postgresUrl}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--debug-addr=127.0.0.1:0',
        '--telemetry=disable',
        `--state-dir=${state}`,
        '--log-level=warn',
      ],
      join(dir, 'ferretdb.log'),
    );
    await waitForPort(port, 30_000, 'FerretDB');
    return pid;
  };
  const r = restartable('ferretdb', dir, port, `mongodb://127.0.0.1:${port}/`, launch);
  await (r as Restartable & { start(): Promise<void> }).start();
  return r;
}
