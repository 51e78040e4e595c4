// The link repair reads its record set, not its organisation
// (shared/storage/repair-records-read.ts): recorded through the MongoDB
// driver's command monitoring, the same record set in a small and in a much larger
// organisation costs the same queries and returns the same documents, and on
// FerretDB every filter is top-level equality on an indexed field (the only
// kind FerretDB pushes down; a `$in` would make it read the whole org).
import { expect } from 'chai';
import { MongoClient, type CommandStartedEvent, type CommandSucceededEvent, type Db, type Document } from 'mongodb';
import { INDEXES, ginFields } from '../../../shared/storage/indexes.js';
import {
  ORG_PASS_LINKS_PER_ID,
  ORG_PASS_MIN_IDS,
  loadRepairRecords,
} from '../../../shared/storage/repair-records-read.js';
import { takeLocks, liveHolders, lockKeys } from '../../../shared/storage/plan-locks.js';
import { closeStoreAdapter, storeAdapter } from '../../../shared/storage/store-adapter.js';
import { ferretdbHandle, sqlStats } from '../../helpers/ferretdb-adapter.js';
import {
  decodeStoredOperations,
  findStagedOperation,
  insertStagedOperation,
} from '../../../shared/storage/staged-operations.js';
import { BODY_INLINE_LIMIT, MissingOperationBodyError } from '../../../shared/storage/staged-operation-codec.js';
import { findJobResult, saveJobResult } from '../../../shared/storage/job-results.js';
import { isFerretDb } from '../../../shared/storage/ferretdb/server.js';
import { Books } from '../../helpers/books.js';
import { stack } from '../../helpers/stack.js';

/** The record set: 120 entries and 120 transactions of one counterparty (more than one `$in` chunk's worth on FerretDB), linked, plus links to another counterparty's entries. */
function recordSetBooks(otherRecords: number): { books: Books; account: string; counterparty: string } {
  const books = new Books();
  const account = books.account();
  const counterparty = books.cp('a');
  for (let i = 0; i < 120; i++) books.linkedTxn(account, 1000 + i, { counterparty_id: counterparty });
  const elsewhere = books.invoice(500, { counterparty_id: books.cp('elsewhere') });
  books.link(books.file.bank_transactions[0]!.id, elsewhere, 1);
  // The rest of the organisation: other counterparties' entries, transactions and links.
  for (let i = 0; i < otherRecords; i++)
    books.linkedTxn(account, 2000 + i, { counterparty_id: books.cp(`other${i % 40}`) });
  return { books, account, counterparty };
}

interface Recorded {
  collection: string;
  filter: Document;
  returned: number;
}

async function recordReads(run: (client: MongoClient) => Promise<unknown>): Promise<Recorded[]> {
  const client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
  await client.connect();
  const started = new Map<number, Recorded>();
  const byCursor = new Map<string, Recorded>();
  const out: Recorded[] = [];
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find') {
      const r = { collection: String(e.command.find), filter: e.command.filter as Document, returned: 0 };
      started.set(e.requestId, r);
      out.push(r);
    } else if (e.commandName === 'getMore') {
      const r = byCursor.get(String(e.command.getMore));
      if (r) started.set(e.requestId, r);
    }
  });
  client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    const r = started.get(e.requestId);
    if (!r) return;
    const cursor = (e.reply as { cursor?: { id?: unknown; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
    r.returned += (cursor?.firstBatch ?? cursor?.nextBatch ?? []).length;
    // A Long: its toString is the number.
    const id = cursor?.id as { toString(): string } | undefined;
    if (id !== undefined && id.toString() !== '0') byCursor.set(id.toString(), r);
  });
  try {
    await run(client);
  } finally {
    await client.close();
  }
  return out;
}

/** Each org's record set read through a client that records its reads. */
async function readRecordSets<O extends { books: { orgId: string }; account: string; counterparty: string }>(
  db: Db,
  orgs: O[],
) {
  const runs = [];
  for (const org of orgs) {
    let loaded: Awaited<ReturnType<typeof loadRepairRecords>> | null = null;
    const reads = await recordReads(async (client) => {
      loaded = await loadRepairRecords(client.db(db.databaseName), org.books.orgId, org.account, org.counterparty);
    });
    runs.push({ org, reads, loaded: loaded! });
  }
  return runs;
}

describe('link repair record set reads', function () {
  this.timeout(180_000);

  it('issue the same equality reads and return the same documents at 1× and 15× the organisation size', async () => {
    const s = await stack();
    const small = recordSetBooks(0);
    const large = recordSetBooks(1800);
    await s.load(small.books.file);
    await s.load(large.books.file);
    const ferret = await isFerretDb(s.db);

    const runs = await readRecordSets(s.db, [small, large]);
    const [smallRun, largeRun] = runs as [(typeof runs)[0], (typeof runs)[0]];
    // The record set itself is the same in both: 120 transactions, 121 entries, 121 links.
    for (const run of runs) {
      expect(run.loaded.transactions).to.have.length(120);
      expect(run.loaded.entries).to.have.length(121);
      expect(run.loaded.links).to.have.length(121);
    }
    const total = (reads: Recorded[]) => reads.reduce((n, r) => n + r.returned, 0);
    expect(largeRun.reads.length, 'find commands').to.equal(smallRun.reads.length);
    expect(total(largeRun.reads), 'documents returned').to.equal(total(smallRun.reads));

    // Every filter is served by an index: a selective field besides org_id, each one declared.
    for (const read of largeRun.reads) {
      const fields = Object.keys(read.filter);
      const selective = fields.filter((f) => f !== 'org_id');
      expect(selective.length, JSON.stringify(read)).to.be.greaterThan(0);
      for (const f of selective) expect(ginFields(INDEXES[read.collection]!), `${read.collection}.${f}`).to.include(f);
      if (ferret) {
        // Only plain values: FerretDB pushes nothing else down to PostgreSQL.
        for (const value of Object.values(read.filter))
          expect(typeof value, JSON.stringify(read.filter)).to.equal('string');
      }
    }
  });
});

/** A big record set: `size` linked transactions of one counterparty (2·size ids), plus `otherRecords` linked transactions of others. */
function bigRecordSetBooks(
  size: number,
  otherRecords: number,
): { books: Books; account: string; counterparty: string } {
  const books = new Books();
  const account = books.account();
  const counterparty = books.cp('a');
  for (let i = 0; i < size; i++) books.linkedTxn(account, 1000 + i, { counterparty_id: counterparty });
  const elsewhere = books.invoice(500, { counterparty_id: books.cp('elsewhere') });
  books.link(books.file.bank_transactions[0]!.id, elsewhere, 1);
  for (let i = 0; i < otherRecords; i++)
    books.linkedTxn(account, 5000 + i, { counterparty_id: books.cp(`other${i % 40}`) });
  return { books, account, counterparty };
}

describe('link repair record set reads, big record sets', function () {
  this.timeout(300_000);

  it('read a big record set in a handful of queries when the org is small, and fall back to per-id equality reads after a bounded pass when it is not', async () => {
    const s = await stack();
    const size = 260; // 260 transactions + 260 entries: past ORG_PASS_MIN_IDS
    const ids = 2 * size; // the entry elsewhere is found through its link, not by counterparty
    expect(ids).to.be.at.least(ORG_PASS_MIN_IDS);
    const budget = ids * ORG_PASS_LINKS_PER_ID;
    const small = bigRecordSetBooks(size, 0);
    // More links than the pass may read: it must give up.
    const large = bigRecordSetBooks(size, budget + 200);
    await s.load(small.books.file);
    await s.load(large.books.file);
    const ferret = await isFerretDb(s.db);

    const runs = await readRecordSets(s.db, [small, large]);

    // Both load exactly the record set: its transactions, its entries plus the one elsewhere, and the links of both.
    for (const { org, loaded } of runs) {
      const file = org.books.file;
      const txns = new Set(
        file.bank_transactions.filter((t) => t.counterparty_id === org.counterparty).map((t) => t.id),
      );
      const entries = new Set(
        file.ledger_entries.filter((e) => e.counterparty_id === org.counterparty).map((e) => e.id),
      );
      const links = file.bank_links
        .filter((l) => txns.has(l.bank_transaction_id) || entries.has(l.ledger_entry_id))
        .map((l) => l.id);
      const elsewhere = file.bank_links
        .filter((l) => txns.has(l.bank_transaction_id) && !entries.has(l.ledger_entry_id))
        .map((l) => l.ledger_entry_id);
      expect(loaded.transactions.map((t) => t.id).sort()).to.deep.equal([...txns].sort());
      expect(loaded.entries.map((e) => e.id).sort()).to.deep.equal([...entries, ...elsewhere].sort());
      expect(loaded.links.map((l) => l.id).sort()).to.deep.equal(links.sort());
      expect(loaded.links).to.have.length(size + 1);
      // The documents themselves, not only their ids.
      const stored = new Map(file.bank_links.map((l) => [l.id, l]));
      for (const l of loaded.links) expect(l.amount_minor).to.equal(stored.get(l.id)!.amount_minor);
    }
    if (!ferret) return; // MongoDB: `$in` in chunks, served by its indexes; nothing adaptive.

    const [smallRun, largeRun] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const orgPasses = (reads: Recorded[]) =>
      reads.filter((r) => r.collection === 'bank_links' && Object.keys(r.filter).join() === 'org_id');
    // Small org: transactions, entries, one pass over the links, the one entry elsewhere.
    expect(smallRun.reads.map((r) => r.collection).sort(), JSON.stringify(smallRun.reads)).to.deep.equal([
      'bank_links',
      'bank_transactions',
      'ledger_entries',
      'ledger_entries',
    ]);
    expect(orgPasses(smallRun.reads)).to.have.length(1);
    expect(orgPasses(smallRun.reads)[0]!.returned).to.equal(size + 1);
    // Large org: the pass stops at its budget, then one equality read per id.
    const pass = orgPasses(largeRun.reads);
    expect(pass).to.have.length(1);
    // The budget and one more to tell: the limit bounds what FerretDB reads, not only what the loop looks at.
    expect(pass[0]!.returned).to.equal(budget + 1);
    // By the id alone (docs/indexes.md "Reads by id alone"): the owner is checked in the code.
    const equalities = largeRun.reads.filter(
      (r) =>
        r.collection === 'bank_links' &&
        ['bank_transaction_id', 'ledger_entry_id'].includes(Object.keys(r.filter).join()),
    );
    expect(equalities).to.have.length(ids);
    for (const r of equalities) for (const value of Object.values(r.filter)) expect(typeof value).to.equal('string');
  });
});

/** Records in id order, each as its JSON (key order included): what two reads of one record set must both give. */
const canonical = (set: Awaited<ReturnType<typeof loadRepairRecords>>) => {
  const sorted = <T extends { id: string }>(rows: T[]) =>
    [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => JSON.stringify(r));
  return { transactions: sorted(set.transactions), entries: sorted(set.entries), links: sorted(set.links) };
};

describe('link repair record set reads in SQL by the FerretDB adapter', function () {
  this.timeout(300_000);
  let ferretDb: Db | null = null;

  after(async () => {
    if (ferretDb) await closeStoreAdapter(ferretDb);
  });

  it('give exactly the documents FerretDB gives, for a small and a big record set, without one FerretDB find on the book tables', async function () {
    const s = await stack();
    if (!(await isFerretDb(s.db)) || !s.config.ferretdbPostgresUrl) {
      console.log('    (skipped: the store is not FerretDB with FERRETDB_POSTGRES_URL; the SQL path is never taken)');
      this.skip();
    }
    ferretDb = await ferretdbHandle(s.db, s.config.ferretdbPostgresUrl);
    const postgresUrl = s.config.ferretdbPostgresUrl;
    const orgs = [recordSetBooks(40), bigRecordSetBooks(ORG_PASS_MIN_IDS, 300)];
    for (const org of orgs) await s.load(org.books.file);
    for (const org of orgs) {
      const viaFerret = await loadRepairRecords(s.db, org.books.orgId, org.account, org.counterparty);
      let viaSql: Awaited<ReturnType<typeof loadRepairRecords>> | null = null;
      let served = 0;
      let handle: Db | null = null;
      const reads = await recordReads(async (client) => {
        handle = await ferretdbHandle(client.db(s.db.databaseName), postgresUrl);
        served = sqlStats(handle).served;
        viaSql = await loadRepairRecords(handle, org.books.orgId, org.account, org.counterparty);
      });
      const sql = sqlStats(handle!);
      await closeStoreAdapter(handle!);
      // The same records, field for field and key for key, as the driver gives them through FerretDB.
      expect(canonical(viaSql!)).to.deep.equal(canonical(viaFerret));
      expect(viaSql!.links.length).to.be.greaterThan(0);
      // Five SQL queries (transactions, entries, links both ways, entries elsewhere), and nothing through FerretDB.
      expect(sql.served - served).to.equal(5);
      expect(
        reads.filter((r) => ['bank_transactions', 'ledger_entries', 'bank_links'].includes(r.collection)),
      ).to.deep.equal([]);
    }
  });

  it("a refused take reads the holder's locks in SQL, the same locks FerretDB gives", async function () {
    const s = await stack();
    if (!ferretDb) this.skip();
    const orgId = `org_locks_${Date.now().toString(36)}`;
    const wanted = {
      subject_key: `reverse:le_${orgId}`,
      entry_ids: [`le_${orgId}`],
      transaction_ids: Array.from({ length: 30 }, (_, i) => `bt_${orgId}_${i}`),
    };
    expect((await takeLocks(s.db, orgId, wanted, 'stg_holder', 'hash')).acquired).to.equal(true);
    const viaFerret = await takeLocks(s.db, orgId, wanted, 'stg_other', 'hash2');
    const served = sqlStats(ferretDb).served;
    const viaSql = await takeLocks(ferretDb, orgId, wanted, 'stg_other', 'hash2');
    // Three SQL statements: the keys' locks, whether its own operation exists, and (it does not) giving back what it took.
    expect(sqlStats(ferretDb).served - served).to.equal(3);
    expect(viaFerret.acquired).to.equal(false);
    expect(viaSql.acquired).to.equal(false);
    const ids = (r: typeof viaSql) => (r.acquired ? [] : r.locks.map((l) => JSON.stringify(l)).sort());
    expect(ids(viaSql)).to.deep.equal(ids(viaFerret));
    expect(ids(viaSql)).to.have.length(lockKeys(orgId, wanted).length);
    // The holder's operation never appeared, but its locks are younger than an orphan's: it holds every key, read either way.
    const holders = await liveHolders(ferretDb, orgId, lockKeys(orgId, wanted), new Date(), undefined);
    expect(holders).to.deep.equal(await liveHolders(s.db, orgId, lockKeys(orgId, wanted), new Date()));
    expect(new Set(holders.map((h) => h.staged_operation_id))).to.deep.equal(new Set(['stg_holder']));
  });

  it('a staged operation read in SQL is the document FerretDB gives, and a projection in SQL gives the fields a MongoDB projection gives', async function () {
    const s = await stack();
    if (!ferretDb) this.skip();
    const orgId = `org_ops_${Date.now().toString(36)}`;
    const id = `stg_${orgId}`;
    // Key order, nested arrays, nulls, numbers: what a real operation holds; `expires_at` left out of the second.
    const doc = {
      _id: id,
      org_id: orgId,
      kind: 'ledger_link_repair',
      status: 'staged',
      created_by: 'alice',
      created_at: '2026-11-26T10:00:00.000Z',
      expires_at: '2026-11-27T10:00:00.000Z',
      request_id: 'req',
      idempotency_key: null,
      scope_key: 'repair:x',
      input: { b: 1, a: [1, 'x', null] },
      plan: { actions: [{ z: 1, a: -0.5 }, { m: [] }] },
      plan_hash: 'h',
      preconditions: [{ collection: 'bank_links', id: 'bl_1', version: 2 }],
      warnings: [],
      history: [{ at: 'now', actor: 'alice', from: null, to: 'staged', note: null }],
      context: {},
    };
    const { expires_at: _omitted, ...withoutExpiry } = { ...doc, _id: `${id}_2` };
    await insertStagedOperation(s.db, doc as never);
    await insertStagedOperation(s.db, withoutExpiry as never);
    expect(JSON.stringify(await findStagedOperation(ferretDb, orgId, id))).to.equal(
      JSON.stringify(await findStagedOperation(s.db, orgId, id)),
    );
    expect(await findStagedOperation(ferretDb, 'another_org', id)).to.equal(null);
    for (const opId of [id, `${id}_2`]) {
      const viaSql = await (
        await storeAdapter(ferretDb)
      ).where({
        collection: 'staged_operations',
        equalities: {},
        any: { field: '_id', values: [opId] },
        fields: ['status', 'org_id', 'expires_at'],
      });
      const viaFerret = await s.db
        .collection('staged_operations')
        .findOne({ _id: opId as never }, { projection: { status: 1, org_id: 1, expires_at: 1 } });
      expect(JSON.stringify(viaSql)).to.equal(JSON.stringify([viaFerret]));
    }
  });

  it('an insert that meets its own earlier attempt reads that operation back in SQL and answers it', async function () {
    const s = await stack();
    if (!ferretDb) this.skip();
    const orgId = `org_again_${Date.now().toString(36)}`;
    const first = {
      _id: `stg_${orgId}`,
      org_id: orgId,
      kind: 'ledger_reversal',
      status: 'staged',
      created_by: 'alice',
      created_at: '2026-11-28T10:00:00.000Z',
      expires_at: '2026-11-29T10:00:00.000Z',
      request_id: 'req_1',
      idempotency_key: null,
      scope_key: 'reverse:le_1',
      input: {},
      plan: { ledger_entry_id: 'le_1', actions: [] },
      plan_hash: 'h1',
      preconditions: [],
      warnings: [],
      history: [{ at: 'now', actor: 'alice', from: null, to: 'staged', note: null }],
      context: {},
    };
    await insertStagedOperation(ferretDb, first as never);
    const served = sqlStats(ferretDb).served;
    // A retried job's second attempt: same id, another request; the first one's operation stands.
    const again = await insertStagedOperation(ferretDb, { ...first, request_id: 'req_2', plan_hash: 'h2' } as never);
    expect(again).to.deep.equal(first);
    expect(sqlStats(ferretDb).served, 'reads answered in SQL').to.be.greaterThan(served);
    expect(await s.db.collection('staged_operations').countDocuments({ org_id: orgId })).to.equal(1);
  });

  it('a large operation is stored as two documents, its body first: read in SQL and through FerretDB it is the operation given, a small one beside it stays one document; a page of both decodes in order', async function () {
    const s = await stack();
    if (!ferretDb) this.skip();
    const orgId = `org_body_${Date.now().toString(36)}`;
    const base = {
      org_id: orgId,
      kind: 'statement_import',
      status: 'staged',
      created_by: 'alice',
      created_at: '2026-11-26T10:00:00.000Z',
      expires_at: '2026-11-27T10:00:00.000Z',
      request_id: 'req',
      idempotency_key: null,
      input: {},
      plan_hash: 'h',
      warnings: [],
      history: [{ at: 'now', actor: 'alice', from: null, to: 'staged', note: null }],
      preconditions: [{ collection: 'bank_accounts', id: 'ba_1', version: 2 }],
      context: { account: { id: 'ba_1' } },
    };
    const transactions = Array.from({ length: 1_000 }, (_, i) => ({
      id: `bt_${orgId}_${i}`,
      amount_minor: i - 200,
      remittance_info: `Rechnung ${i} — Größe`,
      value_date: null,
    }));
    const big = {
      ...base,
      _id: `stg_${orgId}_big`,
      scope_key: 'statement_import:ba_1',
      plan: { bank_account_id: 'ba_1', new_transactions: transactions, skipped: [] },
    };
    const small = {
      ...base,
      _id: `stg_${orgId}_small`,
      scope_key: 'statement_import:ba_2',
      plan: { bank_account_id: 'ba_2', new_transactions: transactions.slice(0, 2), skipped: [] },
    };
    expect(JSON.stringify(big.plan).length).to.be.greaterThan(BODY_INLINE_LIMIT);
    await insertStagedOperation(s.db, big as never);
    await insertStagedOperation(s.db, small as never);
    const raw = await s.db
      .collection('staged_operations')
      .find({ org_id: orgId } as never)
      .sort({ _id: 1 })
      .toArray();
    expect(raw.map((r) => [r._id, typeof r.body_id, typeof r.plan_json])).to.deep.equal([
      [big._id, 'string', 'undefined'],
      [small._id, 'undefined', 'string'],
    ]);
    const body = await s.db.collection('staged_operation_bodies').findOne({ _id: raw[0]!.body_id as never });
    expect(body).to.include({ org_id: orgId, staged_operation_id: big._id, plan_json: JSON.stringify(big.plan) });
    for (const op of [big, small]) {
      const viaSql = await findStagedOperation(ferretDb, orgId, op._id);
      expect(JSON.stringify(viaSql), `${op._id} in SQL`).to.equal(
        JSON.stringify(await findStagedOperation(s.db, orgId, op._id)),
      );
      expect(viaSql, op._id).to.deep.equal(op);
    }
    const page = await decodeStoredOperations(ferretDb, [raw[1]!, raw[0]!] as never);
    expect(page.map((o) => [o._id, (o.plan as { new_transactions: unknown[] }).new_transactions.length])).to.deep.equal(
      [
        [small._id, 2],
        [big._id, 1_000],
      ],
    );
    // A body that is gone is an error, never an operation without its plan.
    await s.db.collection('staged_operation_bodies').deleteOne({ _id: raw[0]!.body_id as never });
    const missing = await findStagedOperation(ferretDb, orgId, big._id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(missing).to.be.instanceOf(MissingOperationBodyError);
    // The database is shared by the test files that follow: none of them is to meet this broken operation.
    await s.db.collection('staged_operations').deleteMany({ org_id: orgId });
  });

  it('a stored answer read in SQL, its plan joined back from the operation read in SQL, is the one FerretDB gives', async function () {
    const s = await stack();
    if (!ferretDb) this.skip();
    const orgId = `org_res_${Date.now().toString(36)}`;
    const opId = `stg_${orgId}`;
    await insertStagedOperation(s.db, {
      _id: opId,
      org_id: orgId,
      kind: 'ledger_reversal',
      status: 'staged',
      created_by: 'alice',
      created_at: '2026-11-26T10:00:00.000Z',
      expires_at: '2026-11-27T10:00:00.000Z',
      request_id: 'req',
      idempotency_key: 'k',
      scope_key: 'reverse:le_1',
      input: {},
      plan: { ledger_entry_id: 'le_1', actions: [{ action: 'insert', amount_minor: -1200 }] },
      plan_hash: 'hash',
      preconditions: [],
      warnings: [],
      history: [],
      context: { entries: [{ id: 'le_1', lines: [{ account: '1200', debit_minor: 1200 }] }] },
    } as never);
    const answer = {
      operation: 'ledger_reversal.stage',
      outcome: 'staged',
      created: true,
      staged_operation_id: opId,
      data: {
        outcome: 'staged',
        staged_operation_id: opId,
        status: 'staged',
        expires_at: '2026-11-27T10:00:00.000Z',
        context: { entries: [] },
        plan: {},
        plan_hash: 'hash',
        summary: null,
        warnings: [],
      },
      warnings: [],
    };
    const jobId = `job_${orgId}`;
    expect(
      await saveJobResult(s.db, {
        _id: jobId,
        org_id: orgId,
        actor: 'alice',
        request_id: 'req',
        answer: answer as never,
        finished_at: '2026-11-26T10:00:01.000Z',
      }),
    ).to.equal(true);
    const viaFerret = await findJobResult(s.db, orgId, jobId);
    const viaSql = await findJobResult(ferretDb, orgId, jobId, undefined);
    expect(JSON.stringify(viaSql)).to.equal(JSON.stringify(viaFerret));
    expect((viaSql!.answer as unknown as { data: { plan: unknown } }).data.plan).to.deep.equal({
      ledger_entry_id: 'le_1',
      actions: [{ action: 'insert', amount_minor: -1200 }],
    });
    expect(await findJobResult(ferretDb, 'another_org', jobId, opId)).to.equal(null);
  });
});
