// Start or reuse, and stop, the servers a checkout needs (docs/guide/quick-start.md "Where the servers come from"):
// MONGO_URL/REDIS_URL when set; else testcontainers when a Docker engine
// answers; else local redis-server and FerretDB on PostgreSQL 15, on free
// loopback ports with data in a temp dir. What was started is recorded in
// `.bookstage/services-NAME.json` inside the checkout, so two checkouts never
// share or stop each other's servers, and stop kills only its own pids.
// With `dataDir` (the `dev` set of `npm start` and `npm run services`) the
// servers are always local and keep their data there between runs
// (PostgreSQL with fsync on, Redis with AOF); `resetServices` wipes it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dockerMayBeThere, removeContainers, startWithTestcontainers } from './docker.js';
import { ensureFerretBinary, startFerret } from './ferretdb.js';
import { ferretPostgresUrl, startPostgres, stopPostgres } from './postgres.js';
import { isOurProcess, log, stopProcess } from './processes.js';
import { startRedis } from './redis.js';

/** postgresUrl: the database behind a FerretDB this script started (FERRETDB_POSTGRES_URL); absent otherwise. */
export interface ServiceUrls {
  mongoUrl: string;
  redisUrl: string;
  postgresUrl?: string;
}

interface LocalState {
  kind: 'local';
  base_dir: string;
  /** base_dir holds kept data: stop leaves it, reset removes it. */
  durable?: boolean;
  redis: { pid: number; port: number };
  postgres: { data_dir: string; port: number };
  ferretdb: { pid: number; port: number; binary: string };
  mongo_url: string;
  redis_url: string;
}
interface DockerState {
  kind: 'docker';
  containers: string[];
  mongo_url: string;
  redis_url: string;
}
type State = LocalState | DockerState;

/** The checkout's root (this file is dist/scripts/services/lifecycle.js). */
export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const stateDir = join(projectRoot, '.bookstage');
const stateFile = (name: string): string => join(stateDir, `services-${name}.json`);

function readState(name: string): State | null {
  try {
    return JSON.parse(readFileSync(stateFile(name), 'utf8')) as State;
  } catch {
    return null;
  }
}

function alive(state: State): boolean {
  if (state.kind === 'docker') return true;
  return (
    isOurProcess(state.redis.pid, 'redis-server') &&
    isOurProcess(state.ferretdb.pid, 'ferretdb') &&
    existsSync(join(state.postgres.data_dir, 'postmaster.pid'))
  );
}

/** Where `npm start` and `npm run services` keep their data (ignored by git). */
export const devDataDir = join(stateDir, 'data');

export interface StartOptions {
  /** Keep data in this folder between runs (local servers only); default: throw-away servers. */
  dataDir?: string;
  /** Use MONGO_URL/REDIS_URL when both are set (default true). */
  useEnv?: boolean;
}

/** Env URLs win; otherwise start (or reuse) the named set of servers. */
export async function startServices(name: string, options: StartOptions = {}): Promise<ServiceUrls> {
  const { MONGO_URL, REDIS_URL } = process.env;
  if ((options.useEnv ?? true) && MONGO_URL && REDIS_URL) return { mongoUrl: MONGO_URL, redisUrl: REDIS_URL };

  const existing = readState(name);
  // why: a set started before (or without) kept data must not be reused as if it kept it.
  const sameKind =
    existing?.kind === 'local' ? Boolean(existing.durable) === Boolean(options.dataDir) : !options.dataDir;
  if (existing && alive(existing) && sameKind) {
    log(`reusing running servers (${stateFile(name)})`);
    return urlsOf(existing);
  }
  if (existing) await stopServices(name);

  mkdirSync(stateDir, { recursive: true });
  if (options.dataDir) return startLocal(name, options.dataDir);
  if (dockerMayBeThere()) {
    const docker = await startWithTestcontainers();
    if (docker) {
      const state: DockerState = {
        kind: 'docker',
        containers: docker.containers,
        mongo_url: docker.mongoUrl,
        redis_url: docker.redisUrl,
      };
      writeFileSync(stateFile(name), JSON.stringify(state, null, 2));
      return { mongoUrl: docker.mongoUrl, redisUrl: docker.redisUrl };
    }
  }
  return startLocal(name);
}

function urlsOf(state: State): ServiceUrls {
  const urls: ServiceUrls = { mongoUrl: state.mongo_url, redisUrl: state.redis_url };
  if (state.kind === 'local') urls.postgresUrl = ferretPostgresUrl(state.postgres.port);
  return urls;
}

async function startLocal(name: string, dataDir?: string): Promise<ServiceUrls> {
  const binary = ensureFerretBinary(join(projectRoot, '.cache'));
  const durable = dataDir !== undefined;
  const baseDir = dataDir ?? mkdtempSync(join(tmpdir(), `bookstage-${name}-`));
  mkdirSync(baseDir, { recursive: true });
  // The postgres user must be able to reach its data dir below this one.
  chmodSync(baseDir, 0o755);
  const partial: Partial<LocalState> & { kind: 'local'; base_dir: string } = {
    kind: 'local',
    base_dir: baseDir,
    durable,
  };
  const save = (): void => writeFileSync(stateFile(name), JSON.stringify(partial, null, 2));
  try {
    const redisDir = durable ? join(baseDir, 'redis') : baseDir;
    mkdirSync(redisDir, { recursive: true });
    partial.redis = await startRedis(redisDir, undefined, durable);
    save();
    const pg = await startPostgres(baseDir, durable);
    partial.postgres = { data_dir: pg.dataDir, port: pg.port };
    save();
    const ferret = await startFerret(binary, baseDir, pg.port);
    partial.ferretdb = ferret;
    partial.mongo_url = `mongodb://127.0.0.1:${ferret.port}/bookstage`;
    partial.redis_url = `redis://127.0.0.1:${partial.redis.port}`;
    save();
    return urlsOf(partial as LocalState);
  } catch (err) {
    log(`start failed, stopping what was started: ${(err as Error).message}`);
    await stopState(partial);
    rmSync(stateFile(name), { force: true });
    throw err;
  }
}

async function stopState(state: Partial<LocalState> | DockerState): Promise<void> {
  if (state.kind === 'docker') {
    await removeContainers(state.containers);
    return;
  }
  if (state.ferretdb) await stopProcess(state.ferretdb.pid, 'ferretdb');
  if (state.postgres) stopPostgres(state.postgres.data_dir);
  if (state.redis) await stopProcess(state.redis.pid, 'redis-server');
  if (state.base_dir && !state.durable) rmSync(state.base_dir, { recursive: true, force: true });
}

/** Stop what `startServices(name)` started; servers given by env URLs are never touched. */
export async function stopServices(name: string): Promise<boolean> {
  const state = readState(name);
  if (!state) return false;
  await stopState(state);
  rmSync(stateFile(name), { force: true });
  log(`stopped servers of ${stateFile(name)}`);
  return true;
}

/** Stop the named set if it runs, then delete its kept data (`npm run services -- reset`). */
export async function resetServices(name: string, dataDir: string): Promise<void> {
  await stopServices(name);
  rmSync(dataDir, { recursive: true, force: true });
  log(`removed kept data ${dataDir}`);
}
