// `npm run bench` (bench/README.md): starts its own servers (like
// `npm test`), an API process and worker processes, loads demo books, measures
// every figure of bench/README.md as the median of --repeat runs, prints one table
// and writes its figures (a full run to bench/results/latest.json; where
// others go: bench/lib/options.ts). Targets are ratios
// against a floor measured in the same run, so a busy machine moves figure
// and floor together.
//
//   npm run bench -- [--sizes 1000,10000,100000] [--repeat 3] [--json FILE]
//                    [--only round_trip,repair,duplicates,worker_scaling,mixed_load,books_read,cli,statement_import] [--smoke] [--max-minutes 60]
//
// BENCH_CPU_PROF_DIR=DIR: the API and worker processes write V8 CPU profiles
// there (node --cpu-prof) when the bench stops them.
// --smoke shrinks every count to prove the bench runs (test/unit/bench-smoke);
// its figures mean nothing. MONGO_URL/REDIS_URL (and FERRETDB_POSTGRES_URL),
// when set, are used instead of starting servers.
import { chooseStoreAdapter, closeStoreAdapter } from '../shared/storage/store-adapter.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { projectRoot, startServices, stopServices } from '../scripts/services/lifecycle.js';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo } from '../shared/storage/mongo.js';
import { addSplits, formatSplit, pidOfUrl, withCpuSplit, type PidSource } from './lib/cpu-split.js';
import { startApiProcess, startWorkerProcesses, type Service } from './lib/processes.js';
import { FULL, SMOKE } from './lib/scale.js';
import { medianOf } from './lib/stats.js';
import { emptyResults, printTable, type BenchResults, type RunInfo } from './lib/report.js';
import { measureDuplicates } from './sections/duplicates.js';
import { mixedLoadRun } from './sections/mixed-load.js';
import { measureRepair } from './sections/repair.js';
import { roundTripRun, type BenchEnv } from './sections/round-trip.js';
import { measureWorkerScaling } from './sections/worker-scaling.js';
import { measureBooksRead } from './sections/books-read.js';
import { measureCliStart } from './sections/cli-start.js';
import { measureStatementImport } from './sections/statement-import.js';
import { parseArgs, resultFiles } from './lib/options.js';

const USAGE = `npm run bench -- [--sizes 1000,10000,100000] [--repeat 3] [--json FILE] [--only SECTION,…] [--smoke] [--max-minutes 60]
sections: round_trip, repair, duplicates, worker_scaling, mixed_load, books_read, cli, statement_import
what each measures: bench/README.md
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const options = parseArgs(process.argv.slice(2));
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const set = `bench-${process.pid}`;
  const started = Date.now();
  const services: Service[] = [];
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all(services.map((s) => s.stop()));
      await stopServices(set);
    })());
  // Bounded: a run that overstays (a very busy machine) stops its servers and fails instead of hanging on.
  const deadline = setTimeout(() => {
    log(`bench: still running after ${options.maxMinutes} min (--max-minutes); stopping`);
    void stop().then(() => process.exit(1));
  }, options.maxMinutes * 60_000);
  deadline.unref();
  process.once('SIGINT', () => {
    void stop().then(() => process.exit(130));
  });
  process.once('SIGTERM', () => {
    void stop().then(() => process.exit(143));
  });
  const results: BenchResults = emptyResults();
  let info: RunInfo | null = null;
  try {
    const urls = await startServices(set);
    const mongoUrl = new URL(urls.mongoUrl);
    mongoUrl.pathname = `/bookstage_bench_${randomBytes(3).toString('hex')}`;
    const mongo = await connectMongo(mongoUrl.toString());
    await ensureIndexes(mongo.db, { postgresUrl: urls.postgresUrl ?? process.env.FERRETDB_POSTGRES_URL });
    const queuePrefix = `bst-bench-${randomBytes(3).toString('hex')}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      MONGO_URL: mongoUrl.toString(),
      REDIS_URL: urls.redisUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      STAGE_WAIT_MS: '120000',
      STAGE_WAIT_MAX_MS: '120000',
      // The per-token rate limit must not throttle the bench's own clients; workers pick free metrics ports.
      RATE_LIMIT_REQUESTS: '100000000',
      RATE_LIMIT_AUTH_FAILURES: '100000000',
      WORKER_METRICS_PORT: '0',
      ...(urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {}),
    };
    const postgresUrl = urls.postgresUrl ?? process.env.FERRETDB_POSTGRES_URL;
    // The bench's own reads (a floor that reads as a job does) go through the adapter the worker runs.
    chooseStoreAdapter(mongo.db, { postgresUrl });
    const api = await startApiProcess(env);
    services.push(api);
    // The worker processes in use; worker scaling runs with two for a while.
    const workers: Service[] = [];
    const retired: Service[] = [];
    const setWorkers = async (count: number): Promise<void> => {
      while (workers.length > count) {
        const w = workers.pop()!;
        await w.stop();
        retired.push(w);
      }
      if (workers.length < count)
        workers.push(
          ...(await startWorkerProcesses(env, count - workers.length, { url: urls.redisUrl, prefix: queuePrefix })),
        );
      services.splice(0, services.length, api, ...workers);
    };
    await setWorkers(1);
    const wanted = (section: string): boolean => !options.only || options.only.has(section);
    log(
      `bench: ${cpus().length} cores, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}, sizes ${options.sizes.join(',')}, repeat ${options.repeat}`,
    );
    const pids: PidSource = {
      api: () => (api.child.pid ? [api.child.pid] : []),
      worker: () => workers.flatMap((w) => (w.child.pid ? [w.child.pid] : [])),
      redis: pidOfUrl(urls.redisUrl, 6379),
      ferretdb: pidOfUrl(urls.mongoUrl, 27017),
      postgres: pidOfUrl(urls.postgresUrl ?? process.env.FERRETDB_POSTGRES_URL, 5432),
    };
    const section = async (name: string, run: () => Promise<void>): Promise<void> => {
      if (!wanted(name)) return;
      const t0 = Date.now();
      log(`${name} …`);
      await run();
      log(`${name}: ${Math.round((Date.now() - t0) / 1000)} s`);
    };
    // Measured parts only (not the loading of books), summed over repeats.
    const profile = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
      const { value, split } = await withCpuSplit(pids, run);
      const sum = (results.cpu_split[label] = addSplits(results.cpu_split[label], split));
      log(`  ${formatSplit(label, sum)}`);
      return value;
    };

    const benchEnv: BenchEnv = {
      db: mongo.db,
      baseUrl: api.baseUrl,
      redisUrl: urls.redisUrl,
      queuePrefix,
      scale: options.smoke ? SMOKE : FULL,
      log,
      profile,
      split: (label) => results.cpu_split[label],
    };

    await section('round_trip', async () => {
      const rt = await medianOf(options.repeat, roundTripRun(benchEnv));
      // The ratio of the medians, not the median of the ratios.
      results.round_trip = { ...rt, ratio_p50: Math.round((rt.p50_ms / rt.floor_p50_ms) * 100) / 100 };
    });
    await section('repair', async () => {
      results.repair = await measureRepair(benchEnv, options.sizes, options.repeat);
    });
    await section('duplicates', async () => {
      results.duplicates = await measureDuplicates(benchEnv, options.sizes, options.repeat);
    });
    await section('worker_scaling', async () => {
      const { store_cpu_s_per_job: storeCpu, ...scaling } = await measureWorkerScaling(
        benchEnv,
        options.repeat,
        setWorkers,
      );
      results.worker_scaling = scaling;
      // Its jobs are 10k-transaction repairs: their store CPU is a repair figure.
      results.repair = {
        ...(results.repair ?? { job_ms: {}, growth_1k_to_100k: null, plan_100k_ms: null }),
        store_cpu_s_10k_scope: storeCpu,
      };
    });
    await section('mixed_load', async () => {
      // The warm-up run is reported beside the figures, never in them (bench/README.md "What each section measures").
      const {
        own_cpu_ms_per_call: warmupOwn,
        rps: warmupRps,
        p99_ms: warmupP99,
      } = await mixedLoadRun(benchEnv, 'mixed load (warm-up)')('w');
      const { own_cpu_ms_per_call: ownCpu, ...mixed } = await medianOf(options.repeat, mixedLoadRun(benchEnv));
      results.mixed_load = { ...mixed, warmup_rps: warmupRps, warmup_p99_ms: warmupP99 };
      results.own_cpu = { ms_per_call: ownCpu, warmup_ms_per_call: warmupOwn };
    });
    await section('books_read', async () => {
      results.books_read = await measureBooksRead(benchEnv, options.sizes, options.repeat);
    });
    await section('cli', () => {
      results.cli = measureCliStart(projectRoot, options.repeat, options.smoke);
      return Promise.resolve();
    });
    await section('statement_import', async () => {
      results.statement_import = await measureStatementImport(benchEnv, options.sizes, options.repeat, options.smoke);
    });

    const workerPeaks = [...workers, ...retired].map((w) => w.peakRssMb());
    results.peak_rss_mb = { api: api.peakRssMb(), worker: Math.max(...workerPeaks) };
    info = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine: `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GB, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} at the end`,
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      seconds: Math.round((Date.now() - started) / 1000),
    };
    await mongo.db.dropDatabase();
    await closeStoreAdapter(mongo.db);
    await mongo.client.close();
  } finally {
    await stop();
  }
  if (info) process.stdout.write(printTable(results, info));
  const files = resultFiles(options, projectRoot);
  for (const file of files) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  }
  log(`bench: wrote ${files.join(' and ')}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
