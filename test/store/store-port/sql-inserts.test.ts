// Inserts in SQL by the FerretDB adapter (shared/storage/ferretdb/postgres-inserts.ts,
// docs/indexes.md "Writes in SQL"): a document inserted in SQL is the row
// FerretDB itself stores for it, reads back through FerretDB as the same
// document, and a statement of several collections stores all or none.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import pg from 'pg';
import { stagedEventDoc } from '../../../shared/storage/audit-events.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import {
  decodeFerretDocument,
  encodeFerretDocument,
  InexactDocument,
} from '../../../shared/storage/ferretdb/ferret-sjson.js';
import { storedJobResult } from '../../../shared/storage/job-results.js';
import { lockDocs } from '../../../shared/storage/plan-locks.js';
import { ferretTables } from '../../../shared/storage/ferretdb/postgres-gin-indexes.js';
import { openPostgresPages, PostgresPages } from '../../../shared/storage/ferretdb/postgres-pages.js';
import { encodeStaging } from '../../../shared/storage/staged-operation-codec.js';
import { ferretdbStack } from '../../helpers/ferretdb-adapter.js';

/** A staged operation as a staging job builds it, with a plan big enough to get a body of its own when asked. */
function operation(id: string, orgId: string, actions: number): StagedOperationDoc {
  const at = '2026-11-27T10:00:00.000Z';
  return {
    _id: id,
    org_id: orgId,
    kind: 'ledger_link_repair',
    status: 'staged',
    created_by: 'agent:é',
    created_at: at,
    expires_at: '2026-11-28T10:00:00.000Z',
    request_id: 'req-1',
    idempotency_key: null,
    scope_key: `repair:ba_1:cp_1`,
    input: { bank_account_id: 'ba_1', counterparty_id: 'cp_1' },
    plan: {
      actions: Array.from({ length: actions }, (_, i) => ({
        kind: 'link',
        bank_transaction_id: `bt_${i}`,
        ledger_entry_id: `le_${i}`,
        amount_minor: 100 + i,
      })),
    },
    plan_hash: 'f'.repeat(64),
    preconditions: [{ collection: 'orgs', id: orgId, version: 3 }],
    warnings: [],
    history: [{ at, actor: 'agent:é', from: null, to: 'staged', note: null }],
    context: { entries: { le_0: { amount_minor: -5 } } },
  } as unknown as StagedOperationDoc;
}

/** Values of every type a document here can hold, and the edges of the driver's typing. */
const EDGES: Document = {
  int: 7,
  negative: -2147483648,
  int32_max: 2147483647,
  past_int32: 2147483648,
  safe: 9007199254740991,
  double: 0.1,
  minus_zero: -0,
  big: 1e21,
  tiny: 5e-324,
  text: 'a "quoted" \\ back\nslash\t and ünïcödé 🙂',
  empty: '',
  yes: true,
  no: false,
  nothing: null,
  unset: undefined,
  when: new Date(Date.UTC(2026, 10, 27, 10, 0, 0, 123)),
  nested: { b: 1, a: [1, 'two', { three: 3.5, deeper: { x: [] } }, null, undefined], '10': 'ten', '2': 'two' },
  list: [],
  objects: [{}, { k: 'v' }],
  'with space': 1,
};

describe('inserts in SQL by the FerretDB adapter', function () {
  this.timeout(120_000);
  const uid = randomBytes(3).toString('hex');
  const scratch = `sql_inserts_${uid}`;
  const other = `sql_inserts_other_${uid}`;
  let db: Db;
  let pages: PostgresPages;
  let client: pg.Client;
  let tables: Map<string, string>;
  let postgresUrl: string;

  before(async function () {
    const stack = await ferretdbStack(this, 'documents are written through the driver there');
    db = stack.s.db;
    postgresUrl = stack.postgresUrl;
    pages = openPostgresPages(postgresUrl);
    client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    // FerretDB makes a collection's table on its first insert.
    await db.collection(scratch).insertOne({ _id: 'seed' as never });
    await db.collection(other).insertOne({ _id: 'seed' as never });
    tables = await ferretTables(client, db.databaseName);
  });

  after(async () => {
    await pages?.close();
    await client?.end();
    if (db)
      for (const name of [scratch, other])
        await db
          .collection(name)
          .drop()
          .catch(() => undefined);
  });

  /** The row FerretDB stores for `_id` in `collection`, compared in PostgreSQL with our text as jsonb. */
  async function sameRow(collection: string, id: string, text: string): Promise<boolean> {
    const table = `${pg.escapeIdentifier(db.databaseName)}.${pg.escapeIdentifier(tables.get(collection)!)}`;
    const r = await client.query<{ same: boolean }>(
      `SELECT _jsonb = $1::jsonb AS same FROM ${table} WHERE _jsonb -> '_id' = to_jsonb($2::text)`,
      [text, id],
    );
    expect(r.rows, `a row for ${id}`).to.have.length(1);
    return r.rows[0]!.same;
  }

  const realDocs = (): Array<{ name: string; doc: Document }> => {
    const small = operation(`so_${uid}_small`, 'org_x', 3);
    const big = encodeStaging(operation(`so_${uid}_big`, 'org_x', 2000), `body_${uid}`, 1024);
    const parted = encodeStaging(operation(`so_${uid}_parted`, 'org_x', 200), `parted_${uid}`, 1024, 4096);
    const reservation = { sequence: 41, reservedAt: Date.UTC(2026, 10, 27), retired: Promise.resolve() };
    const answer = {
      operation: 'ledger_link_repair.stage',
      outcome: 'staged',
      created: true,
      staged_operation_id: small._id,
      data: { outcome: 'staged', plan: small.plan },
      warnings: [],
    };
    return [
      { name: 'a staged operation kept inline', doc: encodeStaging(small, 'unused').op },
      { name: 'an operation naming its body', doc: big.op },
      { name: 'an operation body', doc: big.bodies[0]! },
      { name: 'an operation whose body is cut into parts', doc: parted.op },
      ...parted.bodies.map((doc, i) => ({ name: `body part ${i}`, doc })),
      ...lockDocs(
        'org_x',
        { subject_key: 'repair:ba_1:cp_1', entry_ids: ['le_1'], transaction_ids: ['bt_1', 'bt_2'] },
        small._id,
        'f'.repeat(64),
        '2026-11-27T10:00:00.000Z',
      ).map((doc, i) => ({ name: `plan lock ${i}`, doc })),
      { name: 'a staging event', doc: stagedEventDoc(small, reservation) },
      {
        name: 'a stored answer',
        doc: storedJobResult({
          _id: `job_${uid}`,
          org_id: 'org_x',
          actor: 'agent:é',
          request_id: 'req-1',
          answer: answer as never,
          finished_at: '2026-11-27T10:00:00.000Z',
        }),
      },
      {
        name: 'an event sequence reservation',
        doc: { _id: `org_x:${uid}`, org_id: 'org_x', sequence: 41, at: '2026-11-27T10:00:00.000Z' },
      },
      { name: 'every type and edge', doc: { _id: `edges_${uid}`, ...EDGES } },
    ];
  };

  it('encodes each document as the row FerretDB stores for it', async () => {
    for (const { name, doc } of realDocs()) {
      await db.collection(scratch).insertOne({ ...doc, _id: `driver:${String(doc._id)}` } as Document);
      const ours = encodeFerretDocument({ ...doc, _id: `driver:${String(doc._id)}` });
      expect(await sameRow(scratch, `driver:${String(doc._id)}`, ours), name).to.equal(true);
    }
  });

  it('reads back through FerretDB as the document the driver inserted', async () => {
    for (const { name, doc } of realDocs()) {
      const id = String(doc._id);
      expect(
        await pages.insertTogether(db, [{ collection: scratch, docs: [{ ...doc, _id: `sql:${id}` }] }]),
        name,
      ).to.equal('stored');
      const viaSql = await db.collection(scratch).findOne({ _id: `sql:${id}` as never });
      const viaDriver = await db.collection(scratch).findOne({ _id: `driver:${id}` as never });
      expect(viaDriver, `${name}: inserted by the test before`).to.not.equal(null);
      expect({ ...viaSql, _id: id }, name).to.deep.equal({ ...viaDriver, _id: id });
      // Key order too: FerretDB keeps it in `$k`.
      expect(Object.keys(viaSql!), name).to.deep.equal(Object.keys(viaDriver!));
    }
  });

  it('decodes each row FerretDB stored as the document the driver reads, key order and a __proto__ key included', async () => {
    const withProto: Document = { _id: `driver:proto_${uid}`, a: 1 };
    Object.defineProperty(withProto, '__proto__', {
      value: { admin: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    withProto.z = 'last';
    await db.collection(scratch).insertOne(withProto);
    expect(
      await sameRow(scratch, `driver:proto_${uid}`, encodeFerretDocument(withProto)),
      'a __proto__ key encoded as FerretDB stores it',
    ).to.equal(true);
    const ids = [...realDocs().map(({ doc }) => `driver:${String(doc._id)}`), `driver:proto_${uid}`];
    const table = `${pg.escapeIdentifier(db.databaseName)}.${pg.escapeIdentifier(tables.get(scratch)!)}`;
    let proto: Record<string, unknown> | undefined;
    for (const id of ids) {
      const row = await client.query<{ _jsonb: Record<string, unknown> }>(
        `SELECT _jsonb FROM ${table} WHERE _jsonb -> '_id' = to_jsonb($1::text)`,
        [id],
      );
      const decoded = decodeFerretDocument(row.rows[0]!._jsonb);
      const viaDriver = await db.collection(scratch).findOne({ _id: id as never });
      expect(decoded, id).to.deep.equal(viaDriver);
      expect(Object.keys(decoded), id).to.deep.equal(Object.keys(viaDriver!));
      if (id === `driver:proto_${uid}`) proto = decoded;
    }
    expect(Object.getPrototypeOf(proto!), 'the prototype is left alone').to.equal(Object.prototype);
    expect(Object.keys(proto!)).to.deep.equal(['_id', 'a', '__proto__', 'z']);
    expect((proto as { admin?: unknown }).admin).to.equal(undefined);
  });

  it('refuses what FerretDB would refuse or type otherwise', () => {
    const refused: Array<[string, Document]> = [
      ['a key starting with $', { _id: 'x', $set: 1 }],
      ['a dotted key', { _id: 'x', nested: { 'a.b': 1 } }],
      ['an array in an array', { _id: 'x', list: [[1]] }],
      ['NaN', { _id: 'x', n: Number.NaN }],
      ['Infinity', { _id: 'x', n: [Number.POSITIVE_INFINITY] }],
      ['a bigint', { _id: 'x', n: 1n }],
      ['a class instance', { _id: 'x', n: new Map() }],
      ['a lone surrogate', { _id: 'x', s: 'a\ud800b' }],
      ['a NUL', { _id: 'x', s: 'a\u0000b' }],
      ['an _id not first', { a: 1, _id: 'x' }],
    ];
    for (const [name, doc] of refused) expect(() => encodeFerretDocument(doc), name).to.throw(InexactDocument);
  });

  it('stores every group or none: a duplicate anywhere leaves nothing of the others', async () => {
    await db.collection(other).insertOne({ _id: `taken_${uid}` as never, n: 1 });
    const before = pages.stats.written;
    const outcome = await pages.insertTogether(db, [
      {
        collection: scratch,
        docs: [
          { _id: `first_${uid}`, n: 1 },
          { _id: `second_${uid}`, n: 2 },
        ],
      },
      {
        collection: other,
        docs: [
          { _id: `free_${uid}`, n: 3 },
          { _id: `taken_${uid}`, n: 4 },
        ],
      },
    ]);
    expect(outcome).to.equal('duplicate');
    expect(pages.stats.written).to.equal(before);
    expect(
      await db.collection(scratch).countDocuments({ _id: { $in: [`first_${uid}`, `second_${uid}`] } } as Document),
    ).to.equal(0);
    expect(await db.collection(other).countDocuments({ _id: `free_${uid}` } as Document)).to.equal(0);
    expect(
      (await db.collection(other).findOne({ _id: `taken_${uid}` as never }))?.n,
      'the document there stays as it was',
    ).to.equal(1);

    expect(
      await pages.insertTogether(db, [
        { collection: scratch, docs: [{ _id: `first_${uid}`, n: 1 }] },
        { collection: other, docs: [{ _id: `free_${uid}`, n: 3 }] },
      ]),
    ).to.equal('stored');
    expect(await db.collection(scratch).countDocuments({ _id: `first_${uid}` } as Document)).to.equal(1);
    expect(await db.collection(other).countDocuments({ _id: `free_${uid}` } as Document)).to.equal(1);
  });

  it('keeps its PostgreSQL session when a statement is refused as a duplicate', async () => {
    // One session a pool, counted as it opens: a refused statement must not cost a new one (its catalog load and plans).
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 1 });
    const prepared = new pg.Pool({
      connectionString: postgresUrl,
      max: 1,
      options: '-c plan_cache_mode=force_generic_plan',
    });
    let opened = 0;
    let closed = 0;
    for (const p of [pool, prepared]) {
      p.on('connect', () => {
        opened += 1;
      });
      p.on('remove', () => {
        closed += 1;
      });
    }
    const own = new PostgresPages(pool, prepared);
    try {
      const doc = { collection: scratch, docs: [{ _id: `kept_${uid}`, n: 1 }] };
      expect(await own.insertTogether(db, [doc])).to.equal('stored');
      for (let i = 0; i < 3; i += 1) expect(await own.insertTogether(db, [doc])).to.equal('duplicate');
      expect(
        await own.insertTogether(db, [{ collection: scratch, docs: [{ _id: `kept_after_${uid}`, n: 2 }] }]),
        'the kept session still writes',
      ).to.equal('stored');
      expect(closed, 'sessions closed by three refused statements').to.equal(0);
      expect(opened, 'one session a pool (the table names, the inserts)').to.equal(2);
    } finally {
      await own.close();
    }
  });

  it('declines, writing nothing, a collection without a table or a document it does not encode', async () => {
    const declined = pages.stats.declined;
    expect(
      await pages.insertTogether(db, [
        { collection: scratch, docs: [{ _id: `never_${uid}` }] },
        { collection: `no_table_${uid}`, docs: [{ _id: 'x' }] },
      ]),
    ).to.equal('declined');
    expect(
      await pages.insertTogether(db, [
        { collection: scratch, docs: [{ _id: `never_${uid}` }, { _id: `nan_${uid}`, n: Number.NaN }] },
      ]),
    ).to.equal('declined');
    expect(pages.stats.declined).to.equal(declined + 2);
    expect(
      await db.collection(scratch).countDocuments({ _id: { $in: [`never_${uid}`, `nan_${uid}`] } } as Document),
    ).to.equal(0);
  });
});
