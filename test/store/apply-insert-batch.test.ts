// A journal's inserts made in batches (docs/design/staged-lifecycle.md
// "Apply", "Crash safety"), on the real store (FerretDB 1.24 in the test
// stack): what an ordered insertMany answers when it meets a duplicate `_id`
// in the middle, and the rules the journal builds on it: a duplicate that
// holds its write is the journal's own (counted as made, the batch goes on
// after it); one that does not is a conflict, `done` = its index, and the
// writes before it are undone in reverse while nothing after it was made.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db, MongoBulkWriteError, WriteError } from 'mongodb';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import { createLogger } from '../../shared/logger.js';
import { INSERT_PARTS, makeInserts } from '../../shared/storage/apply-writes.js';
import { collections, type StagedOperationDoc } from '../../shared/storage/collections.js';
import { encodeOperation } from '../../shared/storage/staged-operation-codec.js';
import { finishJournal } from '../../worker/operation/apply-journal-runner.js';
import type { JobContext } from '../../worker/job-context.js';
import { operationHolder } from '../../shared/storage/version-reservations.js';
import { ferretdbHandleForSuite, sqlStats } from '../helpers/ferretdb-adapter.js';
import { stack } from '../helpers/stack.js';

const tag = () => randomBytes(5).toString('hex');
const HOLDER = operationHolder('stg_batch_test');
type InsertWrite = Extract<JournalWrite, { action: 'insert' }>;

/** A new transaction's insert, as statementImportJournal writes it. */
const txnInsert = (id: string, amount: number): InsertWrite => ({
  action: 'insert',
  collection: 'bank_transactions',
  id,
  doc: {
    bank_account_id: 'ba_1',
    booking_date: '2026-11-03',
    amount_minor: amount,
    currency: 'EUR',
    status: 'unreconciled',
    reconciliation_id: null,
    version: 1,
  },
});

/** What an earlier attempt of the same journal left: the write's own document. */
async function madeBefore(db: Db, orgId: string, w: InsertWrite): Promise<void> {
  await db.collection('bank_transactions').insertOne({ ...w.doc, _id: w.id, org_id: orgId } as never);
}

/** Another writer's document under the write's id (an admin import, another statement import). */
async function foreign(db: Db, orgId: string, w: InsertWrite): Promise<void> {
  await db
    .collection('bank_transactions')
    .insertOne({ ...w.doc, amount_minor: -1, remittance_info: 'someone else', _id: w.id, org_id: orgId } as never);
}

async function stored(
  db: Db,
  orgId: string,
  writes: readonly InsertWrite[],
): Promise<Array<Record<string, unknown> | null>> {
  const docs = await db
    .collection('bank_transactions')
    .find({ org_id: orgId, _id: { $in: writes.map((w) => w.id) } } as never)
    .toArray();
  const byId = new Map(docs.map((d) => [d._id as unknown as string, d as Record<string, unknown>]));
  return writes.map((w) => byId.get(w.id) ?? null);
}

/** Each write's stored amount (null: no document), to tell the journal's own documents from another writer's (-1). */
async function storedAmounts(db: Db, orgId: string, writes: readonly InsertWrite[]): Promise<Array<unknown>> {
  return (await stored(db, orgId, writes)).map((d) => d?.amount_minor ?? null);
}

/** An `applying` statement import holding `writes` as its journal, its lease lapsed (a dead job's). */
async function applyingImport(db: Db, orgId: string, writes: JournalWrite[]): Promise<string> {
  const id = `stg_batch_${tag()}`;
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
  return id;
}

function jobContext(db: Db, orgId: string): JobContext {
  return {
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
}

async function leaseSteps(db: Db, id: string) {
  return (await collections(db).applyLeases.find({ staged_operation_id: id }).toArray()).sort((a, b) => a.seq - b.seq);
}

describe('apply journal: inserts in batches, on the real store', function () {
  this.timeout(120_000);

  it('an ordered insertMany of up to 100 documents that meets a duplicate `_id` in the middle stops there: one write error at its index, the documents before it inserted, none after', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 6 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    await foreign(db, orgId, writes[2]!);
    const err = await db
      .collection('bank_transactions')
      .insertMany(
        writes.map((w) => ({ ...w.doc, _id: w.id, org_id: orgId }) as never),
        { ordered: true },
      )
      .then(
        () => null,
        (e: unknown) => e as MongoBulkWriteError,
      );
    expect(err, 'the insertMany failed').to.not.equal(null);
    expect(err!.name).to.equal('MongoBulkWriteError');
    const raw = err!.writeErrors as unknown as WriteError | WriteError[];
    const writeErrors = Array.isArray(raw) ? raw : [raw];
    expect(writeErrors.map((w) => ({ index: w.index, code: w.code }))).to.deep.equal([{ index: 2, code: 11000 }]);
    expect(err!.insertedCount).to.equal(2);
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([100, 101, -1, null, null, null]);
  });

  it("FerretDB 1.24: a longer ordered insertMany refused at index i still inserts the chunk of 100 after i's (why one insertMany of a journal carries at most 100)", async function () {
    const { db } = await stack();
    const build = await db.admin().command({ buildInfo: 1 });
    if (typeof build.ferretdbVersion !== 'string') this.skip();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 500 }, (_, i) => txnInsert(`bt_${orgId}_${String(i).padStart(3, '0')}`, i));
    await foreign(db, orgId, writes[150]!);
    const err = await db
      .collection('bank_transactions')
      .insertMany(
        writes.map((w) => ({ ...w.doc, _id: w.id, org_id: orgId }) as never),
        { ordered: true },
      )
      .then(
        () => null,
        (e: unknown) => e as MongoBulkWriteError,
      );
    const raw = err!.writeErrors as unknown as WriteError | WriteError[];
    expect((Array.isArray(raw) ? raw : [raw]).map((w) => w.index)).to.deep.equal([150]);
    const made = (await stored(db, orgId, writes)).flatMap((d, i) => (d && d.amount_minor === i ? [i] : []));
    expect({ insertedCount: err!.insertedCount, first: made[0], last: made.at(-1), count: made.length }).to.deep.equal({
      insertedCount: 250,
      first: 0,
      last: 299,
      count: 250,
    });
    expect(made.includes(199), 'the rest of the refused chunk is not made').to.equal(false);
    // makeInserts sends at most 100 at a time (ORDERED_INSERT_LIMIT), so a conflict leaves exactly the writes before it.
    const more = Array.from({ length: 300 }, (_, i) => txnInsert(`bt_${orgId}_x${String(i).padStart(3, '0')}`, i));
    await foreign(db, orgId, more[10]!);
    expect(await makeInserts(db, orgId, more, HOLDER)).to.deep.equal({ made: 10, conflict: true });
    expect((await stored(db, orgId, more)).flatMap((d, i) => (d ? [i] : []))).to.deep.equal(
      Array.from({ length: 11 }, (_, i) => i),
    );
  });

  it('makeInserts: a conflict inside a batch makes everything before it and nothing after it; its index is `made`', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 6 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    await foreign(db, orgId, writes[3]!);
    expect(await makeInserts(db, orgId, writes, HOLDER)).to.deep.equal({ made: 3, conflict: true });
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([100, 101, 102, -1, null, null]);
  });

  it("makeInserts: duplicates that hold their write (an earlier attempt's) count as made and the batch goes on after them, up to a conflict further on", async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 8 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    for (const i of [0, 1, 2]) await madeBefore(db, orgId, writes[i]!);
    // `found`: the kept figures cannot be added to (docs/reference/book-reads.md "Kept figures").
    expect(await makeInserts(db, orgId, writes.slice(0, 5), HOLDER), 'a resumed batch, no conflict').to.deep.equal({
      made: 5,
      conflict: false,
      found: true,
    });
    await madeBefore(db, orgId, writes[6]!);
    expect(await makeInserts(db, orgId, writes, HOLDER), 'own documents anywhere in the batch').to.deep.equal({
      made: 8,
      conflict: false,
      found: true,
    });
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([100, 101, 102, 103, 104, 105, 106, 107]);

    const other = `org_${tag()}`;
    const more = Array.from({ length: 6 }, (_, i) => txnInsert(`bt_${other}_${i}`, 200 + i));
    await madeBefore(db, other, more[0]!);
    await madeBefore(db, other, more[1]!);
    await foreign(db, other, more[4]!);
    expect(await makeInserts(db, other, more, HOLDER)).to.deep.equal({ made: 4, conflict: true });
    expect(await storedAmounts(db, other, more)).to.deep.equal([200, 201, 202, 203, -1, null]);
    // The same id in another org is not this org's document: a conflict too.
    const third = `org_${tag()}`;
    const clash = [txnInsert(`bt_${third}_0`, 1), txnInsert(more[5]!.id, 2)];
    await madeBefore(db, orgId, clash[1]!);
    expect(await makeInserts(db, third, clash, HOLDER)).to.deep.equal({ made: 1, conflict: true });
  });

  it('makeInserts: writes after a conflict that are there and hold their documents (an attempt that died, a part stored side by side) are undone: what is made is the prefix before the conflict', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 8 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    await foreign(db, orgId, writes[2]!);
    await madeBefore(db, orgId, writes[5]!);
    await madeBefore(db, orgId, writes[6]!);
    expect(await makeInserts(db, orgId, writes, HOLDER)).to.deep.equal({ made: 2, conflict: true });
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([100, 101, -1, null, null, null, null, null]);
  });

  it('the journal: a conflict inside a batch records done = its index with phase undo in one step, undoes the writes before it in reverse, and ends failed; nothing after it is made', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 7 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    // An earlier attempt made the first two and died before recording progress (done 0); another writer took write 4's id.
    await madeBefore(db, orgId, writes[0]!);
    await madeBefore(db, orgId, writes[1]!);
    await foreign(db, orgId, writes[4]!);
    const id = await applyingImport(db, orgId, writes);
    const op = await finishJournal(jobContext(db, orgId), id, 5_000);

    expect(op.status).to.equal('failed');
    expect(op.result?.error).to.deep.include({ code: 'apply_failed' });
    expect(op.result?.error?.details).to.deep.include({
      reason: 'conflict_during_apply',
      conflict: { collection: 'bank_transactions', id: writes[4]!.id },
      not_undone: [],
    });
    const steps = await leaseSteps(db, id);
    const turned = steps.find((s) => s.phase === 'undo')!;
    expect(
      { done: turned.done, undone: turned.undone, conflict: turned.conflict },
      'the step that turned the journal around',
    ).to.deep.equal({ done: 4, undone: 0, conflict: { collection: 'bank_transactions', id: writes[4]!.id } });
    expect(
      steps
        .filter((s) => s.phase === 'forward')
        .map((s) => s.done)
        .every((d) => d === 0),
      'no forward progress past the batch start',
    ).to.equal(true);
    expect(steps.at(-1)).to.deep.include({ phase: 'undo', done: 4, undone: 4 });
    // Writes 0..3 undone (the earlier attempt's two as well), the other writer's document untouched, 5 and 6 never made.
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([null, null, null, null, -1, null, null]);
  });

  it('the journal: a conflict at the first write ends stale with nothing written; a resumed batch with its own writes already there ends applied, each document once', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const writes = Array.from({ length: 3 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
    await foreign(db, orgId, writes[0]!);
    const staleOp = await finishJournal(jobContext(db, orgId), await applyingImport(db, orgId, writes), 5_000);
    expect(staleOp.status).to.equal('stale');
    expect(await storedAmounts(db, orgId, writes)).to.deep.equal([-1, null, null]);

    const next = `org_${tag()}`;
    const more = Array.from({ length: 1_100 }, (_, i) =>
      txnInsert(`bt_${next}_${String(i).padStart(4, '0')}`, 100 + i),
    );
    for (const i of [0, 1, 99, 100, 101, 750]) await madeBefore(db, next, more[i]!);
    const id = await applyingImport(db, next, more);
    const applied = await finishJournal(jobContext(db, next), id, 5_000);
    expect(applied.status).to.equal('applied');
    expect(await db.collection('bank_transactions').countDocuments({ org_id: next })).to.equal(1_100);
    expect((await stored(db, next, more)).every((d, i) => d?.amount_minor === 100 + i)).to.equal(true);
    // Two steps (1,000 inserts, as ten ordered insertMany calls of 100, then 100): progress moved twice (a heartbeat repeats a step's done), not 1,100 times.
    expect([
      ...new Set((await leaseSteps(db, id)).filter((s) => s.phase === 'forward' && s.done > 0).map((s) => s.done)),
    ]).to.deep.equal([1_000, 1_100]);
  });

  describe('where the store port inserts together (FerretDB 1.x: SQL inserts)', function () {
    const ferretDb = ferretdbHandleForSuite('a run of inserts goes as ordered insertMany calls there');

    it(`a run goes as ${INSERT_PARTS} statements side by side, each all or none: made whole, nothing found`, async () => {
      const handle = ferretDb();
      const orgId = `org_${tag()}`;
      const writes = Array.from({ length: 1_000 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
      const written = sqlStats(handle).written;
      expect(await makeInserts(handle, orgId, writes, HOLDER)).to.deep.equal({ made: 1_000, conflict: false });
      expect(sqlStats(handle).written - written, 'statements').to.equal(INSERT_PARTS);
      expect((await stored(handle, orgId, writes)).every((d, i) => d?.amount_minor === 100 + i)).to.equal(true);
    });

    it('a conflict in the first part while the second part stored: the second part is undone, made = the index of the conflict', async () => {
      const handle = ferretDb();
      const orgId = `org_${tag()}`;
      const writes = Array.from({ length: 8 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
      await foreign(handle, orgId, writes[1]!);
      expect(await makeInserts(handle, orgId, writes, HOLDER)).to.deep.equal({ made: 1, conflict: true });
      expect(await storedAmounts(handle, orgId, writes)).to.deep.equal([100, -1, null, null, null, null, null, null]);
    });

    it("a part that meets the journal's own documents (an attempt that died) leaves the run to the ordered inserts, which count them as found", async () => {
      const handle = ferretDb();
      const orgId = `org_${tag()}`;
      const writes = Array.from({ length: 8 }, (_, i) => txnInsert(`bt_${orgId}_${i}`, 100 + i));
      await madeBefore(handle, orgId, writes[6]!);
      expect(await makeInserts(handle, orgId, writes, HOLDER)).to.deep.equal({
        made: 8,
        conflict: false,
        found: true,
      });
      expect(await storedAmounts(handle, orgId, writes)).to.deep.equal([100, 101, 102, 103, 104, 105, 106, 107]);
    });
  });
});
