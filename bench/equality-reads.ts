// Benchmark: equality reads on FerretDB/PostgreSQL before and after the GIN
// expression indexes (docs/indexes.md). Real servers only: MONGO_URL must
// point at a FerretDB and FERRETDB_POSTGRES_URL at its PostgreSQL database
// (`npm run services -- start` prints both, the latter on stderr). It uses
// its own database next to the one named in MONGO_URL and drops it.
//
//   npm run -s build
//   eval "$(node dist/scripts/services.js start 2>/dev/null)"; export MONGO_URL
//   FERRETDB_POSTGRES_URL=postgres://… node dist/bench/equality-reads.js [--docs 100000] [--reads 50]
//
// The same FerretDB process and the same client measure both sides: the
// database was set to plan_cache_mode=force_custom_plan before FerretDB
// started, so statements FerretDB prepared before the indexes existed use
// them afterwards.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo, databaseName } from '../shared/storage/mongo.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(reps: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i += 1) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  return median(times);
}

async function main(): Promise<void> {
  const { MONGO_URL, FERRETDB_POSTGRES_URL } = process.env;
  if (!MONGO_URL || !FERRETDB_POSTGRES_URL)
    throw new Error('set MONGO_URL and FERRETDB_POSTGRES_URL (npm run services -- start)');
  const docs = option('docs', 100_000);
  const reads = option('reads', 50);
  const url = new URL(MONGO_URL);
  url.pathname = `/${databaseName(MONGO_URL)}_bench_eq_${randomBytes(3).toString('hex')}`;
  const mongo = await connectMongo(url.toString());
  const entries = mongo.db.collection<{
    _id: string;
    org_id: string;
    counterparty_id: string;
    entry_date: string;
    description: string;
  }>('ledger_entries');
  try {
    await ensureIndexes(mongo.db); // collections and ordinary indexes only: no PostgreSQL URL yet
    const orgs = 10;
    const loadStart = performance.now();
    for (let i = 0; i < docs; i += 2000) {
      await entries.insertMany(
        Array.from({ length: Math.min(2000, docs - i) }, (_, k) => {
          const n = i + k;
          return {
            _id: `le_${n}`,
            org_id: `org_${n % orgs}`,
            counterparty_id: `cp_${n % 997}`,
            entry_date: '2026-01-01',
            description: `entry ${n}`,
          };
        }),
      );
    }
    process.stderr.write(`loaded ${docs} ledger entries in ${((performance.now() - loadStart) / 1000).toFixed(1)} s\n`);

    const measure = async (): Promise<Record<string, number>> => ({
      findOne_by_id_ms: await timed(reads, (i) =>
        entries.findOne({ _id: `le_${(i * 7919) % docs}`, org_id: `org_${((i * 7919) % docs) % orgs}` }),
      ),
      find_org_counterparty_ms: await timed(reads, (i) =>
        entries.find({ org_id: `org_${i % orgs}`, counterparty_id: `cp_${(i * 31) % 997}` }).toArray(),
      ),
      twenty_parallel_by_id_ms: await timed(Math.max(3, Math.floor(reads / 10)), (i) =>
        Promise.all(Array.from({ length: 20 }, (_, k) => entries.findOne({ _id: `le_${((i * 20 + k) * 13) % docs}` }))),
      ),
    });
    // Warm-up: FerretDB prepares its statements on its pooled connections first.
    await measure();
    const before = await measure();
    const migrateStart = performance.now();
    const report = await ensureIndexes(mongo.db, { postgresUrl: FERRETDB_POSTGRES_URL });
    const migrateMs = performance.now() - migrateStart;
    const after = await measure();
    process.stdout.write(
      `${JSON.stringify({ docs, reads, migrate_ms: Math.round(migrateMs), created: report?.created.length ?? 0, before, after }, null, 2)}\n`,
    );
  } finally {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
