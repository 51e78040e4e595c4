// A journal's run of updates, deletes and inserts into one collection made
// as one step (docs/design/staged-lifecycle.md "Apply", "Crash safety"), on
// the real store: writes an earlier attempt made count as made, a conflict
// (a document another writer changed, a version another writer holds) cuts
// the run before anything is written, so what a step leaves made is always a
// prefix of it (a fresh run, not read first, undoes what it made past its
// conflict); and an operation whose journal is stored on it (as the version
// before the journal's parts wrote it) still runs to its end.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import { createLogger } from '../../shared/logger.js';
import { INSERT_PARTS, makeRun } from '../../shared/storage/apply-writes.js';
import { ferretdbHandleForSuite, sqlStats } from '../helpers/ferretdb-adapter.js';
import { collections, type StagedOperationDoc } from '../../shared/storage/collections.js';
import { encodeOperation } from '../../shared/storage/staged-operation-codec.js';
import { operationHolder, reserveVersion } from '../../shared/storage/version-reservations.js';
import { finishJournal } from '../../worker/operation/apply-journal-runner.js';
import type { JobContext } from '../../worker/job-context.js';
import { stack } from '../helpers/stack.js';

const tag = () => randomBytes(5).toString('hex');

interface Link {
  _id: string;
  org_id: string;
  bank_transaction_id: string;
  ledger_entry_id: string;
  amount_minor: number;
  version: number;
}

/** Six links at version 3, amount 100 each, and a journal over them: update, delete, insert, update, delete, insert. */
async function linksAndJournal(db: Db, orgId: string): Promise<{ links: Link[]; writes: JournalWrite[] }> {
  const links: Link[] = Array.from({ length: 6 }, (_, i) => ({
    _id: `bl_${orgId}_${i}`,
    org_id: orgId,
    bank_transaction_id: `bt_${i}`,
    ledger_entry_id: `le_${i}`,
    amount_minor: 100,
    version: 3,
  }));
  await db.collection<Link>('bank_links').insertMany(links.filter((_, i) => i % 3 !== 2));
  const fields = (l: Link) => ({
    bank_transaction_id: l.bank_transaction_id,
    ledger_entry_id: l.ledger_entry_id,
    amount_minor: l.amount_minor,
    version: l.version,
  });
  const writes = links.map((l, i): JournalWrite => {
    if (i % 3 === 0)
      return {
        action: 'update',
        collection: 'bank_links',
        id: l._id,
        version: 3,
        set: { amount_minor: 40 + i },
        before: { amount_minor: 100 },
      };
    if (i % 3 === 1) return { action: 'delete', collection: 'bank_links', id: l._id, version: 3, doc: fields(l) };
    return { action: 'insert', collection: 'bank_links', id: l._id, doc: { ...fields(l), version: 1 } };
  });
  return { links, writes };
}

async function stored(db: Db, links: readonly Link[]): Promise<Array<{ amount: number; version: number } | null>> {
  const docs = await db
    .collection<Link>('bank_links')
    .find({ _id: { $in: links.map((l) => l._id) } })
    .toArray();
  const byId = new Map(docs.map((d) => [d._id, d]));
  return links.map((l) => {
    const d = byId.get(l._id);
    return d ? { amount: d.amount_minor, version: d.version } : null;
  });
}

const MADE = [
  { amount: 40, version: 4 },
  null,
  { amount: 100, version: 1 },
  { amount: 43, version: 4 },
  null,
  { amount: 100, version: 1 },
];
const UNTOUCHED = [
  { amount: 100, version: 3 },
  { amount: 100, version: 3 },
  null,
  { amount: 100, version: 3 },
  { amount: 100, version: 3 },
  null,
];

describe('apply journal: a run of updates, deletes and inserts as one step, on the real store', function () {
  this.timeout(120_000);

  it('makes the whole run; run again (a successor after a crash), every write counts as made and nothing moves twice', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    const holder = operationHolder(`stg_${tag()}`);
    expect(await makeRun(db, orgId, writes, holder)).to.deep.equal({ made: 6, conflict: false });
    expect(await stored(db, links)).to.deep.equal(MADE);
    expect(await makeRun(db, orgId, writes, holder)).to.deep.equal({ made: 6, conflict: false });
    expect(await stored(db, links)).to.deep.equal(MADE);
  });

  it('a run part made by an earlier attempt: the made ones count, the rest are made', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    const holder = operationHolder(`stg_${tag()}`);
    expect(await makeRun(db, orgId, writes.slice(0, 2), holder)).to.deep.equal({ made: 2, conflict: false });
    expect(await makeRun(db, orgId, writes.slice(4, 5), holder)).to.deep.equal({ made: 1, conflict: false });
    expect(await makeRun(db, orgId, writes, holder)).to.deep.equal({ made: 6, conflict: false });
    expect(await stored(db, links)).to.deep.equal(MADE);
  });

  it('a document another writer changed: the run is cut there, nothing at or after it is written', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    await db
      .collection<Link>('bank_links')
      .updateOne({ _id: links[3]!._id }, { $set: { amount_minor: 7, version: 4 } });
    expect(await makeRun(db, orgId, writes, operationHolder(`stg_${tag()}`))).to.deep.equal({
      made: 3,
      conflict: true,
    });
    expect(await stored(db, links)).to.deep.equal([
      ...MADE.slice(0, 3),
      { amount: 7, version: 4 },
      ...UNTOUCHED.slice(4),
    ]);
  });

  it('a version another writer holds: the run is cut before it, nothing at or after it is written', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    expect(await reserveVersion(db, orgId, 'bank_links', links[1]!._id, 3, 'import:someone')).to.equal(true);
    expect(await makeRun(db, orgId, writes, operationHolder(`stg_${tag()}`))).to.deep.equal({
      made: 1,
      conflict: true,
    });
    expect(await stored(db, links)).to.deep.equal([MADE[0], ...UNTOUCHED.slice(1)]);
  });

  it('an operation whose journal is stored on it (written before the parts) runs to applied, its writes made once', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    const id = `stg_run_${tag()}`;
    const op: StagedOperationDoc = {
      _id: id,
      org_id: orgId,
      kind: 'statement_import',
      status: 'applying',
      created_by: 'alice',
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      request_id: 'req',
      idempotency_key: null,
      scope_key: `import:${id}`,
      input: {},
      plan: { bank_account_id: 'ba_1', format: 'csv', new_transactions: [], skipped: [] },
      plan_hash: 'hash',
      preconditions: [],
      warnings: [],
      history: [],
      apply: {
        writes,
        done: 0,
        phase: 'forward',
        undone: 0,
        conflict: null,
        owner: 'job-dead',
        lease_until: new Date(Date.now() - 1_000).toISOString(),
        started_at: new Date().toISOString(),
        started_by: 'bob',
        request_id: 'req',
      },
    };
    await collections(db).stagedOperations.insertOne(encodeOperation(op));
    const ctx: JobContext = {
      db,
      log: createLogger('worker', 'silent'),
      jobId: `job-${tag()}`,
      now: new Date(),
      rerun: true,
      settings: { stagedTtlMs: 3_600_000 },
      writes: [],
      data: {
        operation: 'apply',
        request_id: `req_${tag()}`,
        org_id: orgId,
        actor: 'bob',
        requested_at: new Date().toISOString(),
        idempotency_key: null,
        may_review: true,
        input: {},
      } as unknown as JobContext['data'],
    };
    const ended = await finishJournal(ctx, id);
    expect(ended.status).to.equal('applied');
    expect(ended.result?.changes?.map((c) => c.id)).to.deep.equal(links.map((l) => l._id));
    expect(await stored(db, links)).to.deep.equal(MADE);
  });

  it('fresh (no attempt before made a write of the journal): the run is made whole without reading it first', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    expect(await makeRun(db, orgId, writes, operationHolder(`stg_${tag()}`), { fresh: true })).to.deep.equal({
      made: 6,
      conflict: false,
    });
    expect(await stored(db, links)).to.deep.equal(MADE);
  });

  it("fresh: an insert that meets another writer's `_id` is the conflict; the writes after it, made with the run, are undone", async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const { links, writes } = await linksAndJournal(db, orgId);
    // Another organisation's link holds the third write's `_id`: the run is not read first, so only the insert finds it.
    await db.collection<Link>('bank_links').insertOne({ ...links[2]!, org_id: `org_${tag()}`, amount_minor: 7 });
    expect(await makeRun(db, orgId, writes, operationHolder(`stg_${tag()}`), { fresh: true })).to.deep.equal({
      made: 2,
      conflict: true,
    });
    // Undone: the update back to its amount, the deleted link back, both a version on (docs/design/staged-lifecycle.md "Apply").
    expect(await stored(db, links)).to.deep.equal([
      ...MADE.slice(0, 2),
      { amount: 7, version: 3 },
      { amount: 100, version: 5 },
      { amount: 100, version: 4 },
      null,
    ]);
  });

  describe('where the store port inserts together (FerretDB 1.x: SQL inserts)', function () {
    const ferretDb = ferretdbHandleForSuite('a run is read through the driver there');

    it(`fresh: not read before it is written, its inserts ${INSERT_PARTS} statements side by side; not fresh: read once`, async () => {
      const handle = ferretDb();
      for (const fresh of [true, false]) {
        const orgId = `org_${tag()}`;
        const { links, writes } = await linksAndJournal(handle, orgId);
        const inserts = Array.from({ length: 10 }, (_, i) => ({
          ...(writes[2] as Extract<JournalWrite, { action: 'insert' }>),
          id: `bl_${orgId}_new_${i}`,
        }));
        const run = [...writes, ...inserts];
        const before = { ...sqlStats(handle) };
        expect(await makeRun(handle, orgId, run, operationHolder(`stg_${tag()}`), { fresh })).to.deep.equal({
          made: 16,
          conflict: false,
        });
        const after = sqlStats(handle);
        expect(after.served - before.served, `reads of the run, fresh: ${fresh}`).to.equal(fresh ? 0 : 1);
        // The reservations, the inserts in parts, the updates and deletes by `_id`.
        expect(after.written - before.written, `statements, fresh: ${fresh}`).to.equal(1 + INSERT_PARTS + 1);
        expect(await stored(handle, links)).to.deep.equal(MADE);
        expect(await handle.collection('bank_links').countDocuments({ org_id: orgId })).to.equal(4 + 10);
      }
    });
  });
});
