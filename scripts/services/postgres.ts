import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { aptInstall, isRoot, log } from './processes.js';
import { freePort } from './ports.js';

const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface PostgresProcess {
  dataDir: string;
  port: number;
}

function ensurePostgresInstalled(): void {
  if (!existsSync(join(PG_BIN, 'postgres'))) aptInstall(['postgresql-15'], 'set MONGO_URL and REDIS_URL');
  if (!existsSync(join(PG_BIN, 'postgres')))
    throw new Error(`PostgreSQL 15 not found in ${PG_BIN} after apt-get install postgresql-15`);
}

/** PostgreSQL refuses to run as root: as root, run it as the Debian `postgres` user. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, bin), ...args]] : [join(PG_BIN, bin), args];
}

function run(bin: string, args: string[]): void {
  const [cmd, argv] = pgCommand(bin, args);
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * `durable`: keep an existing cluster in `baseDir/pg` (initdb only the first
 * time) and run with PostgreSQL's crash-safe defaults (fsync on); otherwise a
 * fresh cluster with fsync off, for throw-away test servers.
 */
export async function startPostgres(baseDir: string, durable = false): Promise<PostgresProcess> {
  ensurePostgresInstalled();
  const dataDir = join(baseDir, 'pg');
  const reused = durable && existsSync(join(dataDir, 'PG_VERSION'));
  if (!reused) {
    mkdirSync(dataDir, { mode: 0o700, recursive: true });
    if (isRoot()) {
      const { uid, gid } = postgresIds();
      chownSync(dataDir, uid, gid);
      assertReachableByPostgres(dataDir);
    }
    run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale']);
  }
  const port = await freePort();
  const speed = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  // why 400 connections, not PostgreSQL's 100: FerretDB's pool (200, scripts/services/ferretdb.ts) and each API
  // and worker process's two SQL pools (shared/storage/ferretdb/postgres-pages.ts) share this server.
  const connections = ' -c max_connections=400';
  run('pg_ctl', [
    '-D',
    dataDir,
    '-l',
    join(dataDir, 'log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1${connections}${speed}`,
    'start',
  ]);
  if (reused) {
    log(`postgresql 15 on 127.0.0.1:${port} (kept data ${dataDir})`);
    return { dataDir, port };
  }
  // plan_cache_mode before FerretDB opens its first connection: FerretDB
  // prepares each statement once per pooled connection, and only plans made
  // with the parameters inlined can use the GIN expression indexes
  // (docs/indexes.md, shared/storage/ferretdb/postgres-gin-indexes.ts).
  for (const sql of ['create database ferretdb', 'alter database ferretdb set plan_cache_mode = force_custom_plan']) {
    execFileSync(join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q', '-c', sql], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
  log(`postgresql 15 on 127.0.0.1:${port} (data ${dataDir})`);
  return { dataDir, port };
}

/** As root PostgreSQL runs as `postgres`, which must be able to enter every folder above its data dir. */
function assertReachableByPostgres(dataDir: string): void {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dataDir], { stdio: 'ignore' });
  } catch {
    throw new Error(
      `PostgreSQL (user postgres) cannot reach ${dataDir}: make the folders above it enterable by others (chmod o+x), or set MONGO_URL and REDIS_URL`,
    );
  }
}

/** The URL of the database FerretDB stores in (FERRETDB_POSTGRES_URL). */
export function ferretPostgresUrl(port: number): string {
  return `postgres://postgres@127.0.0.1:${port}/ferretdb`;
}

export function stopPostgres(dataDir: string): void {
  if (!existsSync(join(dataDir, 'postmaster.pid'))) return;
  try {
    run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  } catch (err) {
    log(`pg_ctl stop failed: ${(err as Error).message}`);
  }
}
