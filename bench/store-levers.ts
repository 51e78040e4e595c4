// A/B of two store levers (reads by id alone, ANALYZE after an import) on FerretDB/PostgreSQL, in one run
// on one database (docs/design/performance.md "Store levers"): links read by
// `{ org_id, bank_transaction_id }` (before) and by `{ bank_transaction_id }`
// with the owner checked in code (lever 1), for an organisation whose rows
// arrived after the last ANALYZE; then both again after
// refreshPlannerStatistics (lever 2). Real servers only, as
// bench/equality-reads.ts:
//
//   npm run -s build
//   eval "$(node dist/scripts/services.js start 2>/dev/null)"; export MONGO_URL
//   FERRETDB_POSTGRES_URL=postgres://… node dist/bench/store-levers.js [--late 3000] [--reads 200]
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ensureIndexes } from '../shared/storage/indexes.js';
import { connectMongo, databaseName } from '../shared/storage/mongo.js';
import pg from 'pg';
import { ferretTables } from '../shared/storage/ferretdb/postgres-gin-indexes.js';
import { refreshPlannerStatistics } from '../shared/storage/ferretdb/planner-statistics.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** What PostgreSQL did for the SQL FerretDB sends (`_jsonb -> 'f' @> 'v'` per equality): indexes used, buffers, rows filtered away. Not timing: this machine's wall clock is shared. */
async function explain(
  client: pg.Client,
  schema: string,
  table: string,
  where: Array<[string, string]>,
): Promise<{ indexes: string[]; buffers: number; rows_removed: number; execution_ms: number }> {
  const filter = where
    .map(([f, v]) => `_jsonb -> ${pg.escapeLiteral(f)} @> ${pg.escapeLiteral(JSON.stringify(v))}`)
    .join(' AND ');
  const out = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE ${filter}`,
  );
  const root = out.rows[0]!['QUERY PLAN'][0]!;
  const indexes: string[] = [];
  let removed = 0;
  const walk = (n: PlanNode): void => {
    if (n['Index Name'])
      indexes.push(n['Index Name'].replace(/^bstgin_[a-z_]+?_[0-9a-f]{8}_/, '').replace(/_[0-9a-f]{8}$/, ''));
    removed += (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(root.Plan);
  return {
    indexes,
    buffers: root.Plan['Shared Hit Blocks'] + root.Plan['Shared Read Blocks'],
    rows_removed: removed,
    execution_ms: Math.round(root['Execution Time'] * 1000) / 1000,
  };
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const median = (xs: number[]): number =>
  Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! * 1000) / 1000;

async function main(): Promise<void> {
  const { MONGO_URL, FERRETDB_POSTGRES_URL } = process.env;
  if (!MONGO_URL || !FERRETDB_POSTGRES_URL)
    throw new Error('set MONGO_URL and FERRETDB_POSTGRES_URL (npm run services -- start)');
  const late = option('late', 3000);
  const reads = option('reads', 200);
  const url = new URL(MONGO_URL);
  url.pathname = `/${databaseName(MONGO_URL)}_bench_levers_${randomBytes(3).toString('hex')}`;
  const mongo = await connectMongo(url.toString());
  const links = mongo.db.collection<{
    _id: string;
    org_id: string;
    bank_transaction_id: string;
    ledger_entry_id: string;
  }>('bank_links');
  try {
    await ensureIndexes(mongo.db, { postgresUrl: FERRETDB_POSTGRES_URL });
    // 40 organisations of 100 links each, analysed; then one organisation of `late` links, not analysed.
    await links.insertMany(
      Array.from({ length: 4000 }, (_, i) => ({
        _id: `lnk_f${i}`,
        org_id: `org_f${i % 40}`,
        bank_transaction_id: `bt_f${i}`,
        ledger_entry_id: `le_f${i}`,
      })),
    );
    await refreshPlannerStatistics(mongo.db, ['bank_links']);
    for (let i = 0; i < late; i += 1000) {
      await links.insertMany(
        Array.from({ length: Math.min(1000, late - i) }, (_, k) => ({
          _id: `lnk_l${i + k}`,
          org_id: 'org_late',
          bank_transaction_id: `bt_l${i + k}`,
          ledger_entry_id: `le_l${i + k}`,
        })),
      );
    }
    const id = (i: number): string => `bt_l${(i * 7919) % late}`;
    const measure = async (): Promise<{ with_org_id_ms: number; id_alone_ms: number }> => {
      const a: number[] = [];
      const b: number[] = [];
      // Interleaved, so both shapes see the same machine load.
      for (let i = 0; i < reads; i += 1) {
        let t = performance.now();
        await links.find({ org_id: 'org_late', bank_transaction_id: id(i) }).toArray();
        a.push(performance.now() - t);
        t = performance.now();
        (await links.find({ bank_transaction_id: id(i) }).toArray()).filter((l) => l.org_id === 'org_late');
        b.push(performance.now() - t);
      }
      return { with_org_id_ms: median(a), id_alone_ms: median(b) };
    };
    const client = new pg.Client({ connectionString: FERRETDB_POSTGRES_URL });
    await client.connect();
    const schema = mongo.db.databaseName;
    const table = (await ferretTables(client, schema)).get('bank_links')!;
    const plans = async () => ({
      with_org_id: await explain(client, schema, table, [
        ['org_id', 'org_late'],
        ['bank_transaction_id', id(7)],
      ]),
      id_alone: await explain(client, schema, table, [['bank_transaction_id', id(7)]]),
    });
    try {
      await measure(); // warm-up: FerretDB prepares its statements
      const stale = { plans: await plans(), median_wall_per_read: await measure() };
      await refreshPlannerStatistics(mongo.db, ['bank_links']);
      const analysed = { plans: await plans(), median_wall_per_read: await measure() };
      process.stdout.write(
        `${JSON.stringify({ date: new Date().toISOString(), late_links: late, reads, stale_statistics: stale, after_refreshPlannerStatistics: analysed }, null, 2)}\n`,
      );
    } finally {
      await client.end();
    }
  } finally {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`store-levers failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
