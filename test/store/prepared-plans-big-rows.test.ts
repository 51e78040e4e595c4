// The prepared statements' sessions (openPostgresPages, PREPARED_SESSION) plan
// once, generically. On a table the statistics call small, a generic plan of
// a read by `_id` would scan the table and unpack every row to compare its
// `_id`, and one applied 10,000-transaction repair keeps a 2.7 MB apply
// journal in its row: every read of any other operation then paid for it
// (docs/design/performance.md "Where the own CPU per call goes").
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import type { Db } from 'mongodb';
import { ferretdbHandle, ferretdbStack, ownDatabase } from '../helpers/ferretdb-adapter.js';
import { closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import type { Mongo } from '../../shared/storage/mongo.js';
import { ferretTables } from '../../shared/storage/ferretdb/postgres-gin-indexes.js';
import { PREPARED_SESSION, whereSql, type WhereQuery } from '../../shared/storage/ferretdb/postgres-pages.js';
import { findStagedOperation, findStagedOperationStatus } from '../../shared/storage/staged-operations.js';

/** An applied operation's stored row: its journal inline, as big as a 10k-scope repair's, and as incompressible. */
function storedOperation(orgId: string, id: string, journalBytes: number): Record<string, unknown> {
  return {
    _id: id,
    org_id: orgId,
    kind: 'ledger_link_repair',
    status: journalBytes > 0 ? 'applied' : 'staged',
    created_by: 'alice',
    created_at: '2026-11-28T00:00:00.000Z',
    expires_at: '2026-11-29T00:00:00.000Z',
    request_id: 'req',
    idempotency_key: null,
    scope_key: `repair:${id}`,
    input: {},
    plan_hash: 'hash',
    warnings: [],
    history: [],
    plan_json: '{"actions":[]}',
    preconditions_json: '[]',
    context_json: '{}',
    ...(journalBytes > 0
      ? { apply_json: JSON.stringify({ steps: randomBytes(journalBytes / 2).toString('hex') }) }
      : {}),
  };
}

describe('FerretDB adapter: the prepared reads by id never scan a small table of big rows', function () {
  this.timeout(120_000);
  const orgId = `org_bigrows_${randomBytes(3).toString('hex')}`;
  let client: pg.Client | null = null;
  let mongo: Mongo | null = null;
  let sql: Db | null = null;
  let db: Db;
  let table: string;

  before(async function () {
    const { s, postgresUrl } = await ferretdbStack(this, 'MongoDB plans its own reads');
    // A database of its own: its staged_operations table holds only these rows.
    mongo = await ownDatabase(s, 'bigrows', postgresUrl);
    db = mongo.db;
    await db
      .collection('staged_operations')
      .insertMany([
        ...Array.from({ length: 20 }, (_, i) => storedOperation(orgId, `stg_small_${i}`, 0)),
        ...Array.from({ length: 3 }, (_, i) => storedOperation(orgId, `stg_big_${i}`, 2_000_000)),
      ] as never[]);
    client = new pg.Client({ connectionString: postgresUrl, application_name: 'bookstage-bigrows-test' });
    await client.connect();
    table = (await ferretTables(client, db.databaseName)).get('staged_operations')!;
    await client.query(`ANALYZE ${pg.escapeIdentifier(db.databaseName)}.${pg.escapeIdentifier(table)}`);
    sql = await ferretdbHandle(db, postgresUrl);
  });

  after(async () => {
    if (sql) await closeStoreAdapter(sql);
    await client?.end();
    if (mongo) {
      await mongo.db.dropDatabase();
      await mongo.client.close();
    }
  });

  /** The generic plan of a read as the prepared pool runs it, under `settings`. */
  async function genericPlan(q: WhereQuery, settings: Record<string, string>): Promise<string> {
    const { text, values } = whereSql(db.databaseName, table, q);
    for (const [name, value] of Object.entries(settings)) await client!.query(`SET ${name} = ${value}`);
    try {
      await client!.query(`PREPARE by_id AS ${text}`);
      const literal = (v: unknown): string =>
        Array.isArray(v)
          ? `ARRAY[${v.map((x) => pg.escapeLiteral(String(x))).join(', ')}]::jsonb[]`
          : pg.escapeLiteral(String(v));
      const plan = (
        await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE by_id(${values.map(literal).join(', ')})`)
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      await client!.query('DEALLOCATE by_id');
      return plan;
    } finally {
      await client!.query('RESET ALL');
    }
  }

  const reads: Array<{ name: string; q: () => WhereQuery }> = [
    {
      name: 'an operation by _id',
      q: () => ({ collection: 'staged_operations', equalities: {}, any: { field: '_id', values: ['stg_small_3'] } }),
    },
    {
      name: "an operation's status by _id",
      q: () => ({
        collection: 'staged_operations',
        equalities: {},
        any: { field: '_id', values: ['stg_small_3'] },
        fields: ['org_id', 'status'],
      }),
    },
  ];

  for (const { name, q } of reads) {
    it(`${name}: a generic plan alone scans the table here, the prepared sessions' settings read the _id index`, async () => {
      // The hazard is real on this table: with generic plans and nothing else, the planner scans it.
      expect(await genericPlan(q(), { plan_cache_mode: 'force_generic_plan' })).to.match(/Seq Scan/);
      const plan = await genericPlan(q(), PREPARED_SESSION);
      expect(plan, plan).to.not.match(/Seq Scan/);
      expect(plan, plan).to.match(/Index Scan (using|on) \S+__id_/);
    });
  }

  it('reads an operation and its status by id through the prepared pool, the owner checked', async () => {
    const op = await findStagedOperation(sql!, orgId, 'stg_small_3');
    expect(op?._id).to.equal('stg_small_3');
    expect(op?.status).to.equal('staged');
    expect(await findStagedOperationStatus(sql!, orgId, 'stg_big_1')).to.equal('applied');
    expect(await findStagedOperationStatus(sql!, 'another_org', 'stg_big_1')).to.equal(null);
  });
});
