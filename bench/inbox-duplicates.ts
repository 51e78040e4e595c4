// Benchmark: the inbox duplicate overview, materialized per inbox version
// (docs/design/duplicate-overview.md), through the real API and a real worker
// process. For each size: the first read after an import (it computes the
// overview), then the median of repeated first-page and next-page reads.
// Real servers only: MONGO_URL and REDIS_URL must be set (`npm run services
// -- start` prints them; give FERRETDB_POSTGRES_URL too on FerretDB); the
// bench uses its own database next to the one named in MONGO_URL and drops it.
//
//   npm run -s build
//   eval "$(node dist/scripts/services.js start 2>/dev/null)"; export MONGO_URL REDIS_URL
//   node dist/bench/inbox-duplicates.js [--sizes 1000,10000,100000] [--repeat 20]
//
// `measureDuplicatePages({db, baseUrl}, size)` is the same measurement for a
// caller that runs its own API and worker (npm run bench).
import { pathOf } from '../shared/contract/route-paths.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from 'mongodb';
import { startApi } from '../api/runtime.js';
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { createToken } from '../shared/storage/api-tokens.js';
import { importBooks } from '../shared/books/import.js';
import { collections } from '../shared/storage/collections.js';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { inboxFile } from './lib/data.js';

const here = dirname(fileURLToPath(import.meta.url));
const workerMain = join(here, '..', 'worker', 'main.js');
const PATH = pathOf('inbox_duplicates.list');

export interface DuplicatePagesResult {
  size: number;
  groups: number;
  /** The first read after the import: it loads, groups and stores the overview. */
  recompute_ms: number;
  /** Medians of `repeat` reads of the first page (no cursor) and of the second page (the first page's cursor), limit 50. */
  first_page_ms: number;
  next_page_ms: number;
  import_ms: number;
}

function median(ms: number[]): number {
  const s = [...ms].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function page(
  baseUrl: string,
  token: string,
  cursor: string | null,
): Promise<{ ms: number; next: string | null }> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${PATH}?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { ms, next: (JSON.parse(text) as { data: { next_cursor: string | null } }).data.next_cursor };
}

/**
 * Import an inbox of `size` documents into a new organisation of `db`, then
 * read its duplicate overview through the API at `baseUrl` (served by a
 * worker on the same database): the first read (computes), then `repeat`
 * first-page and next-page reads. The API's read wait must outlast the
 * recompute (about 15 s at 100,000 documents here: set STAGE_WAIT_MS).
 */
export async function measureDuplicatePages(
  target: { db: Db; baseUrl: string },
  size: number,
  repeat = 20,
): Promise<DuplicatePagesResult> {
  const orgId = `org_dupbench_${size}_${randomBytes(3).toString('hex')}`;
  const importStart = performance.now();
  const result = await importBooks(target.db, inboxFile(orgId, size, size));
  if (!result.ok) throw new Error(JSON.stringify(result.errors.slice(0, 5)));
  const import_ms = performance.now() - importStart;
  const token = (await createToken(target.db, { org_id: orgId, actor: 'bench', scopes: ['inbox:read'] })).token;
  const first = await page(target.baseUrl, token, null);
  const firstMs: number[] = [];
  const nextMs: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const p = await page(target.baseUrl, token, null);
    firstMs.push(p.ms);
    if (p.next) nextMs.push((await page(target.baseUrl, token, p.next)).ms);
  }
  const overview = await collections(target.db).duplicateOverviews.findOne({ org_id: orgId, state: 'ready' });
  return {
    size,
    groups: overview?.group_count ?? 0,
    recompute_ms: first.ms,
    import_ms,
    first_page_ms: median(firstMs),
    next_page_ms: nextMs.length > 0 ? median(nextMs) : 0,
  };
}

function sizesArg(): number[] {
  const i = process.argv.indexOf('--sizes');
  return (i > 0 ? String(process.argv[i + 1]) : '1000,10000').split(',').map(Number);
}

function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  if (!process.env.MONGO_URL || !process.env.REDIS_URL)
    throw new Error('set MONGO_URL and REDIS_URL (npm run services -- start)');
  const suffix = randomBytes(3).toString('hex');
  const mongoUrl = process.env.MONGO_URL.replace(
    /\/([^/?]*)(\?|$)/,
    (_m, name: string, q: string) => `/${name || 'bookstage'}_bench_${suffix}${q}`,
  );
  // A long read wait: the first read after a 100k import computes for several seconds, and the bench wants its time, not a 503.
  const env = {
    ...process.env,
    MONGO_URL: mongoUrl,
    QUEUE_PREFIX: `bst-bench-${suffix}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    STAGE_WAIT_MS: '120000',
  };
  const config = loadConfig(env);
  const mongo = await connectMongo(config.mongoUrl);
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  let worker: ChildProcess | null = null;
  let api: Awaited<ReturnType<typeof startApi>> | null = null;
  try {
    log(
      `${cpus().length} CPUs, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    await ensureIndexes(mongo.db, { postgresUrl: config.ferretdbPostgresUrl });
    api = await startApi(config, createLogger('api', 'warn'));
    const workerProcess = spawn(process.execPath, [workerMain], {
      env: { ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    worker = workerProcess;
    await new Promise<void>((resolve, reject) => {
      workerProcess.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('"worker ready"')) resolve();
      });
      workerProcess.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
    const results: DuplicatePagesResult[] = [];
    for (const size of sizesArg()) {
      const r = await measureDuplicatePages(
        { db: mongo.db, baseUrl: `http://127.0.0.1:${api.port}` },
        size,
        numberArg('repeat', 20),
      );
      results.push(r);
      log(
        `${String(size).padStart(7)} docs  ${String(r.groups).padStart(6)} groups  import ${(r.import_ms / 1000).toFixed(1)} s  first read (recompute) ${r.recompute_ms.toFixed(0)} ms  first page p50 ${r.first_page_ms.toFixed(1)} ms  next page p50 ${r.next_page_ms.toFixed(1)} ms`,
      );
    }
    log(`RESULT ${JSON.stringify(results)}`);
  } finally {
    if (worker) {
      const w = worker;
      await new Promise<void>((resolve) => {
        w.removeAllListeners('exit');
        w.once('exit', () => resolve());
        w.kill('SIGTERM');
      });
    }
    if (api) await api.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  }
}

// Run only as a script: `npm run bench` imports measureDuplicatePages.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
