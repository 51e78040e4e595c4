// Benchmark: the inbox duplicate overview read directly by the API process
// versus through the worker (read queue). Real servers only: MONGO_URL and
// REDIS_URL must be set (`npm run services -- start` prints them); the bench
// uses its own database next to the one named in MONGO_URL and drops it.
//
//   npx tsc -p tsconfig.json
//   eval "$(node dist/scripts/services.js start 2>/dev/null)"; export MONGO_URL REDIS_URL
//   node dist/bench/inbox-duplicates.js [--docs 10000] [--requests 20] [--concurrency 4]
//
// Both ways answer the same HTTP request with the same middleware (auth, query
// validation): "worker" is the real API (runtime.ts) with a real worker
// process; "direct" is the same route prototype computing in the API process.
// Printed: medians and spreads of sequential requests, then the same requests
// from concurrent clients while /healthz is polled, to show what each way does
// to the API's other requests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { startApi } from '../api/runtime.js';
import { locals } from '../api/context.js';
import { requireScope } from '../api/middleware/auth.js';
import { requestId } from '../api/middleware/request-id.js';
import { loadConfig } from '../shared/config.js';
import type { BooksFile } from '../shared/domain/books-file.js';
import type { InboxDocument } from '../shared/domain/books.js';
import { findDuplicateGroups, pageGroups } from '../shared/domain/duplicate-groups.js';
import { createLogger } from '../shared/logger.js';
import { createToken } from '../shared/storage/api-tokens.js';
import { importBooks } from '../shared/books/import.js';
import { findGroupableInboxDocuments } from '../shared/storage/inbox-read.js';
import { connectMongo } from '../shared/storage/mongo.js';

const here = dirname(fileURLToPath(import.meta.url));
const workerMain = join(here, '..', 'worker', 'main.js');
const PATH = '/api/v1/cli/bookkeeping/inbox/duplicates';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const DOCS = arg('docs', 10_000);
const REQUESTS = arg('requests', 20);
const CONCURRENCY = arg('concurrency', 4);
const WARMUP = 3;

/** A deterministic inbox: mostly lone documents, some duplicates of each kind, a few archived. */
function inbox(orgId: string, n: number, seed: number): BooksFile {
  let state = seed >>> 0;
  const rand = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const docs: BooksFile['inbox_documents'] = [];
  let t = Date.UTC(2025, 0, 1);
  for (let i = 0; i < n; i++) {
    t += Math.floor(rand() * 40 * 60_000);
    const r = rand();
    const base = docs.length > 0 ? pick(docs) : null;
    const own = {
      vendor_name: `Vendor ${Math.floor(rand() * 400)} GmbH`,
      invoice_number: `INV-${orgId}-${i}`,
      invoice_date: new Date(Date.UTC(2025, 0, 1) + Math.floor(rand() * 365) * 86_400_000).toISOString().slice(0, 10),
      total_minor: 1000 + Math.floor(rand() * 500_000),
      currency: 'EUR',
    };
    let sha = createHash('sha256').update(`${orgId}-${i}`).digest('hex');
    let extracted: Record<string, unknown> = own;
    if (base && r < 0.1) sha = base.file.sha256; // the same file again
    else if (base && r < 0.15) extracted = { ...own, vendor_name: String(base.extracted.vendor_name).toUpperCase(), invoice_number: ` ${String(base.extracted.invoice_number).toLowerCase()}` };
    else if (base && r < 0.2) {
      const day = Date.parse(String(base.extracted.invoice_date)) + Math.floor(rand() * 4) * 86_400_000;
      extracted = { ...own, vendor_name: base.extracted.vendor_name, total_minor: base.extracted.total_minor, invoice_date: new Date(day).toISOString().slice(0, 10) };
    }
    const s = rand();
    docs.push({
      id: `doc_${orgId}_${i}`, received_at: new Date(t).toISOString(), source: 'email',
      status: s < 0.7 ? 'open' : s < 0.95 ? 'booked' : 'archived',
      file: { sha256: sha, name: `scan-${i}.pdf`, size: 50_000 + i, mime: 'application/pdf' },
      extracted,
    });
  }
  return {
    org: { id: orgId, name: orgId, base_currency: 'EUR', lock_date: null, settlement_accounts: ['1400', '1600'], require_distinct_approver: true },
    ledger_entries: [], bank_accounts: [], bank_transactions: [], bank_links: [], inbox_documents: docs,
  };
}

interface Stats { n: number; median: number; p90: number; min: number; max: number }
function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
  return { n: s.length, median: q(0.5), p90: q(0.9), min: s[0] as number, max: s[s.length - 1] as number };
}
const fmt = (st: Stats): string => `median ${st.median.toFixed(1)} ms  p90 ${st.p90.toFixed(1)}  min ${st.min.toFixed(1)}  max ${st.max.toFixed(1)}  (n=${st.n})`;

/** Wall time of `fn`, awaited when it answers a promise. */
async function timed(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function get(base: string, token: string, query = 'limit=50'): Promise<{ status: number; bytes: number }> {
  const res = await fetch(`${base}${PATH}?${query}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, bytes: text.length };
}

async function main(): Promise<void> {
  if (!process.env.MONGO_URL || !process.env.REDIS_URL) throw new Error('set MONGO_URL and REDIS_URL (npm run services -- start)');
  const suffix = randomBytes(3).toString('hex');
  const mongoUrl = process.env.MONGO_URL.replace(/\/([^/?]*)(\?|$)/, (_m, name: string, q: string) => `/${name || 'bookstage'}_bench_${suffix}${q}`);
  // A long read wait: under concurrent load a read may take longer than the default 10 s, and the bench wants its time, not a 503.
  const env = { ...process.env, MONGO_URL: mongoUrl, QUEUE_PREFIX: `bst-bench-${suffix}`, PORT: '0', LOG_LEVEL: 'warn', STAGE_WAIT_MS: '120000' };
  const config = loadConfig(env);
  const mongo = await connectMongo(config.mongoUrl);
  const log = (line: string): void => { process.stdout.write(`${line}\n`); };
  let worker: ChildProcess | null = null;
  let api: Awaited<ReturnType<typeof startApi>> | null = null;
  let direct: Server | null = null;
  try {
    const orgId = 'org_bench';
    log(`${cpus().length} CPUs, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (MongoDB-wire server: ${config.mongoUrl.replace(/\/\/[^@/]*@/, '//')})`);
    const loadStart = performance.now();
    for (const [id, n, seed] of [[orgId, DOCS, 1], ['org_bench_other', Math.round(DOCS / 5), 2]] as const) {
      const result = await importBooks(mongo.db, inbox(id, n, seed));
      if (!result.ok) throw new Error(JSON.stringify(result.errors.slice(0, 5)));
    }
    log(`loaded ${DOCS} inbox documents for ${orgId} (+${Math.round(DOCS / 5)} for another org) in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);
    const token = (await createToken(mongo.db, { org_id: orgId, actor: 'bench', scopes: ['inbox:read'] })).token;
    // An organisation with an empty inbox: what is left is the cost of each way itself.
    const emptyToken = (await createToken(mongo.db, { org_id: 'org_bench_empty', actor: 'bench', scopes: ['inbox:read'] })).token;

    // The real API (worker way), in this process, and a real worker process.
    api = await startApi(config, createLogger('api', 'warn'));
    const workerProcess = spawn(process.execPath, [workerMain], { env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
    worker = workerProcess;
    await new Promise<void>((resolve, reject) => {
      workerProcess.stdout.on('data', (chunk: Buffer) => { if (chunk.toString().includes('"worker ready"')) resolve(); });
      workerProcess.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
    const viaWorker = `http://127.0.0.1:${api.port}`;

    // The direct way: the same middleware, the computation in this process.
    const app = express();
    app.use(requestId);
    app.get(PATH, requireScope(mongo.db, 'inbox:read'), async (req, res) => {
      const limit = Number(req.query.limit ?? 50);
      const documents = await findGroupableInboxDocuments(mongo.db, locals(res).auth!.org_id);
      const page = pageGroups(findDuplicateGroups(documents as InboxDocument[]), { limit, min_confidence: null, after: null });
      res.json({ ok: true, data: { groups: page.groups, next_cursor: page.next_after ? 'x' : null } });
    });
    direct = await new Promise<Server>((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
    const viaDirect = `http://127.0.0.1:${(direct.address() as AddressInfo).port}`;

    // What the work is made of, measured in this process.
    const load: number[] = [];
    const group: number[] = [];
    let documents: Awaited<ReturnType<typeof findGroupableInboxDocuments>> = [];
    let groupCount = 0;
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const l = await timed(async () => { documents = await findGroupableInboxDocuments(mongo.db, orgId); });
      const g = await timed(() => { groupCount = findDuplicateGroups(documents as InboxDocument[]).length; });
      if (i >= WARMUP) { load.push(l); group.push(g); }
    }
    log(`${documents.length} open/booked documents, ${groupCount} groups`);
    log(`  load (indexed find, projection)   ${fmt(stats(load))}`);
    log(`  group (findDuplicateGroups)       ${fmt(stats(group))}`);

    const results: Record<string, Stats> = {};
    for (const [label, tok] of [['empty inbox', emptyToken], ['limit=50', token]] as const) {
      for (const [name, base] of [['direct', viaDirect], ['worker', viaWorker]] as const) {
        for (let i = 0; i < WARMUP; i++) await get(base, tok);
        const ms: number[] = [];
        let bytes = 0;
        // CPU time of this process (the API's, for both ways; the HTTP client's share is the same for both).
        const cpu = process.cpuUsage();
        for (let i = 0; i < REQUESTS; i++) ms.push(await timed(async () => { bytes = (await get(base, tok)).bytes; }));
        const used = process.cpuUsage(cpu);
        results[`${name} ${label}`] = stats(ms);
        log(`sequential GET ${label.padEnd(11)} ${name.padEnd(6)}  ${fmt(stats(ms))}  (${bytes} bytes; API process CPU ${((used.user + used.system) / 1000 / REQUESTS).toFixed(1)} ms per request)`);
      }
    }

    // Concurrent clients while /healthz of the real API is polled: the API's
    // event loop is this process's, so blocking it shows in healthz latency.
    for (const [name, base] of [['direct', viaDirect], ['worker', viaWorker]] as const) {
      const health: number[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          try {
            health.push(await timed(async () => { await (await fetch(`${viaWorker}/healthz`)).text(); }));
          } catch {
            return;
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const perRequest: number[] = [];
      const failures: string[] = [];
      const wall = await timed(async () => {
        await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
          for (let i = 0; i < Math.ceil(REQUESTS / CONCURRENCY); i++) {
            const t0 = performance.now();
            try {
              await get(base, token);
              perRequest.push(performance.now() - t0);
            } catch (err) {
              failures.push(err instanceof Error ? err.message.slice(0, 120) : String(err));
            }
          }
        }));
      });
      loop.disable();
      polling = false;
      await poller;
      if (failures.length > 0) log(`    ${failures.length} requests failed, first: ${failures[0]}`);
      log(`${CONCURRENCY} concurrent clients, ${perRequest.length} GETs, ${name.padEnd(6)}  wall ${(wall / 1000).toFixed(2)} s, per request ${fmt(stats(perRequest))}`);
      log(`    /healthz meanwhile: ${fmt(stats(health))};  API event loop delay max ${(loop.max / 1e6).toFixed(0)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms`);
    }
    log(`RESULT ${JSON.stringify({ docs: DOCS, requests: REQUESTS, load: stats(load), group: stats(group), ...results })}`);
  } finally {
    if (worker) { const w = worker; await new Promise<void>((resolve) => { w.removeAllListeners('exit'); w.once('exit', () => resolve()); w.kill('SIGTERM'); }); }
    if (direct) await new Promise<void>((resolve) => { direct!.close(() => resolve()); direct!.closeAllConnections(); });
    if (api) await api.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
