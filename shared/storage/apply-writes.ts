// Making one journal write (shared/domain/apply-journal.ts), and undoing it.
// Every write is guarded by the version the plan saw and bumps it, and every
// write is idempotent: when the guard does not match, the document is read
// and the write counts as made if the document already is what the write
// makes it (a retried job after a crash). Anything else is a conflict: the
// document changed under the journal (only an import can do that while the
// operation holds its plan locks).
//
// Before an update or a delete guarded by version V, the journal reserves V
// (shared/storage/version-reservations.ts): on FerretDB the guarded write alone is a
// read then a write by `_id`, which a racing import could interleave with.
// The holder is the operation, so a retried or resumed journal holds its
// reservations still. Inserts need no reservation: a unique `_id` already settles them.
//
// A run of inserts into one collection is made as statements side by side,
// each all or none, where the store port has them, else as ordered insertMany
// calls (makeInserts): the store stops at the first document it refuses, so
// what a batch made is a prefix of it, and the refused index says where.
import { bulkWriteBounded } from './bounded-bulk-write.js';
import type { AnyBulkWriteOperation, Collection, Db, Document, Filter } from 'mongodb';
import type { JournalWrite } from '../domain/apply-journal.js';
import { canonicalJson } from '../domain/plan-hash.js';
import { reserveVersion, reserveVersions } from './version-reservations.js';
import { storeAdapter } from './store-adapter.js';
import { storeRefusal } from './store-refusal.js';
import { isUniqueViolation, refusedDuplicateIndex } from './unique-violation.js';

export type WriteOutcome = 'done' | 'conflict';

/**
 * A run of inserts: writes[0..made-1] are there (made now, or by an earlier attempt); with `conflict`, writes[made]
 * met a document that is not its own, or, with `refused` (the store's reason, store-refusal.ts), the store refused it.
 */
export interface InsertsOutcome {
  made: number;
  conflict: boolean;
  refused?: string;
  /** An insert met its document already there (an earlier attempt's, counted as made). */
  found?: true;
}

type InsertWrite = Extract<JournalWrite, { action: 'insert' }>;

/**
 * The store answered an ordered insertMany in a way that breaks the prefix
 * rule (it went on past the refused document): the journal could no longer
 * tell which writes a conflict leaves to undo, so the job fails rather than
 * guess. FerretDB 1.24 and MongoDB both keep the rule
 * (test/store/apply-insert-batch.test.ts).
 */
export class UnorderedInsertError extends Error {
  constructor(
    readonly collection: string,
    readonly refusedIndex: number,
    readonly insertedCount: number,
  ) {
    super(
      `ordered insertMany into ${collection} refused index ${refusedIndex} but inserted ${insertedCount} documents`,
    );
    this.name = 'UnorderedInsertError';
  }
}

type Doc = Document & { _id: string; org_id: string; version?: number };

const coll = (db: Db, w: JournalWrite) => db.collection<Doc>(w.collection);
// The organisation's own document (`orgs`, whose lock date a period close sets) is its `_id` and has no `org_id`:
// only the journal's own organisation matches.
const byId = (orgId: string, w: Pick<JournalWrite, 'collection' | 'id'>, version?: number): Filter<Doc> => {
  const owner = w.collection === 'orgs' && w.id === orgId ? {} : { org_id: orgId };
  return version === undefined ? { _id: w.id, ...owner } : { _id: w.id, ...owner, version };
};

/** True when every field of `fields` has this value in `doc`. */
function holds(doc: Doc | null, fields: Record<string, unknown>): boolean {
  if (!doc) return false;
  return Object.entries(fields).every(([k, v]) => doc[k] !== undefined && canonicalJson(doc[k]) === canonicalJson(v));
}

/** Make `w` for `holder` (the operation: version-reservations.ts operationHolder). */
export async function makeWrite(db: Db, orgId: string, w: JournalWrite, holder: string): Promise<WriteOutcome> {
  const c = coll(db, w);
  switch (w.action) {
    case 'update': {
      // Another writer holds the version: our write was never made (only the holder writes), so the record changed.
      if (!(await reserveVersion(db, orgId, w.collection, w.id, w.version, holder))) return 'conflict';
      const r = await c.updateOne(byId(orgId, w, w.version), { $set: { ...w.set, version: w.version + 1 } });
      if (r.matchedCount === 1) return 'done';
      const doc = await c.findOne(byId(orgId, w));
      return doc?.version === w.version + 1 && holds(doc, w.set) ? 'done' : 'conflict';
    }
    case 'insert': {
      if (await insertOnce(db, orgId, w.collection, w.id, w.doc)) return 'done';
      return holds(await c.findOne(byId(orgId, w)), w.doc) ? 'done' : 'conflict';
    }
    case 'delete': {
      if (!(await reserveVersion(db, orgId, w.collection, w.id, w.version, holder))) return 'conflict';
      const r = await c.deleteOne(byId(orgId, w, w.version));
      if (r.deletedCount === 1) return 'done';
      return (await c.findOne(byId(orgId, w))) === null ? 'done' : 'conflict';
    }
  }
}

/**
 * FerretDB 1.24 keeps an ordered insert's prefix rule only within its own
 * chunks of 100 documents (docs/design/performance.md "Statement import"):
 * one insertMany never carries more.
 */
export const ORDERED_INSERT_LIMIT = 100;

/**
 * How many statements a run of inserts goes in side by side where the store
 * port inserts together (insertInParts): PostgreSQL makes one statement's
 * index updates on one core.
 */
export const INSERT_PARTS = 2;

/**
 * Make a run of journal inserts into one collection (journalStepEnd) for
 * `holder`. Where the store port inserts together (FerretDB 1.x: SQL inserts,
 * docs/indexes.md "Writes in SQL"), the run goes first as INSERT_PARTS
 * statements side by side, each all or none (insertInParts); when every part
 * stored its documents, the run is made. Otherwise (a part met a duplicate
 * `_id` or was declined), and on a store without them, the run is made in
 * order, as ordered insertMany calls of at most ORDERED_INSERT_LIMIT, each
 * sent once the one before went in whole. A document refused as a duplicate
 * `_id` is read with the rest of its call's: every one from there on that is
 * already there and holds its write is this journal's own (a part stored
 * side by side, or an attempt that died in the middle of this step) and
 * counts as made, and the insert goes on after them; the first one there that
 * does not hold (another writer's, or another org's) is the conflict. Writes
 * of the run after a conflict that are there and hold their documents (a
 * part's, now or an attempt's) are undone before the conflict is answered, so
 * `made` is exactly what an undo has to take back: what the step leaves made
 * is a prefix of it.
 */
export async function makeInserts(
  db: Db,
  orgId: string,
  writes: readonly InsertWrite[],
  holder: string,
): Promise<InsertsOutcome> {
  if ((await insertInParts(db, orgId, writes)).length === 0) return { made: writes.length, conflict: false };
  let found = false;
  for (let from = 0; from < writes.length; from += ORDERED_INSERT_LIMIT) {
    const chunk = await makeOrderedInserts(db, orgId, writes.slice(from, from + ORDERED_INSERT_LIMIT));
    if (chunk.conflict) {
      const made = from + chunk.made;
      // From the conflict on nothing is made: settleRun undoes what a part (now or an attempt's) left after it.
      await settleRun(db, orgId, writes.slice(made), holder);
      return { ...chunk, made };
    }
    found ||= chunk.found === true;
  }
  return { made: writes.length, conflict: false, ...(found ? { found: true as const } : {}) };
}

/**
 * The run's inserts as INSERT_PARTS consecutive parts, each one statement,
 * all or none, sent side by side (insertTogether); the writes of the parts
 * that did not store (all of them where the store port has no such
 * statement). A part that did not stored nothing; the others' stay, and what
 * is made after meets them as the journal's own.
 */
async function insertInParts(db: Db, orgId: string, writes: readonly InsertWrite[]): Promise<InsertWrite[]> {
  // insertAllTogether takes two documents or more.
  const count = Math.min(INSERT_PARTS, Math.floor(writes.length / 2));
  if (count === 0 || !(await storeAdapter(db)).insertsTogether) return [...writes];
  const size = Math.ceil(writes.length / count);
  const parts = Array.from({ length: count }, (_, i) => writes.slice(i * size, (i + 1) * size));
  // Settled, not raced: no part is still in flight when this answers or throws.
  const stored = await Promise.allSettled(parts.map((part) => insertAllTogether(db, orgId, part)));
  const failed = stored.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return parts.flatMap((part, i) => {
    const s = stored[i]!;
    return s.status === 'fulfilled' && s.value ? [] : part;
  });
}

/**
 * A run's inserts in one statement, all or none, where the store port has one
 * (on FerretDB 1.x, one SQL insert: docs/indexes.md "Writes in SQL"); true
 * when it stored them all. Anything else (declined, a duplicate `_id`, a
 * document the store refuses) stored nothing, and they go through the driver.
 */
async function insertAllTogether(db: Db, orgId: string, writes: readonly InsertWrite[]): Promise<boolean> {
  if (writes.length <= 1) return false;
  const store = await storeAdapter(db);
  if (!store.insertsTogether) return false;
  // `_id` first: the server moves it there on an insert through the driver, and the SQL insert takes a document only so.
  const docs = writes.map((w) => {
    const { _id, ...rest } = { ...w.doc, _id: w.id, org_id: orgId };
    return { _id, ...rest };
  });
  try {
    return (await store.insertTogether([{ collection: writes[0]!.collection, docs }])) === 'stored';
  } catch (err) {
    if (storeRefusal(err) === null) throw err;
    return false;
  }
}

/** makeInserts through the driver, for at most ORDERED_INSERT_LIMIT writes. */
async function makeOrderedInserts(db: Db, orgId: string, writes: readonly InsertWrite[]): Promise<InsertsOutcome> {
  const c = db.collection<Doc>(writes[0]!.collection);
  let at = 0;
  let found = false;
  // From `from` on: how far the writes are there and hold their documents, and what of them is there at all.
  const ours = async (from: number): Promise<{ end: number; found: Map<string, Doc> }> => {
    const found = new Map(
      (await c.find({ _id: { $in: writes.slice(from).map((w) => w.id) }, org_id: orgId }).toArray()).map((d) => [
        d._id,
        d,
      ]),
    );
    let end = from;
    while (end < writes.length && holds(found.get(writes[end]!.id) ?? null, writes[end]!.doc)) end += 1;
    return { end, found };
  };
  while (at < writes.length) {
    let refused: number | null;
    try {
      refused = await insertInOrder(c, orgId, writes.slice(at));
    } catch (err) {
      const reason = storeRefusal(err);
      if (reason === null) throw err;
      // The store refused a document for what it holds: those before it went in (an ordered insert), it and
      // those after did not. The ones there are counted from the store, so the undo takes back exactly them.
      return { made: (await ours(at)).end, conflict: true, refused: reason };
    }
    if (refused === null) return { made: writes.length, conflict: false, ...(found ? { found: true as const } : {}) };
    found = true;
    at += refused;
    const from = at;
    const there = await ours(at);
    at = there.end;
    // The refused one not ours, or a later one there but not ours: the conflict. A later one absent is simply not made yet.
    if (at === from || (at < writes.length && there.found.has(writes[at]!.id))) return { made: at, conflict: true };
  }
  return { made: writes.length, conflict: false, ...(found ? { found: true as const } : {}) };
}

/** Insert `writes` with one ordered insertMany: null when all went in, else the index of the one refused as a duplicate `_id` (all before it went in, none after). */
async function insertInOrder(
  c: Collection<Doc>,
  orgId: string,
  writes: readonly InsertWrite[],
): Promise<number | null> {
  try {
    await c.insertMany(
      writes.map((w) => ({ ...w.doc, _id: w.id, org_id: orgId })),
      { ordered: true },
    );
    return null;
  } catch (err) {
    const refused = refusedDuplicateIndex(err);
    if (refused === null) throw err;
    const inserted = (err as { insertedCount?: unknown }).insertedCount;
    if (typeof inserted === 'number' && inserted !== refused)
      throw new UnorderedInsertError(c.collectionName, refused, inserted);
    return refused;
  }
}

/**
 * Make a run of journal writes into one collection (journalStepEnd) that
 * holds updates or deletes, for `holder`, in four round trips whatever its
 * length: the versions its updates and deletes are guarded by are reserved at
 * once (the reservation settles races, as makeWrite's does); the run is cut
 * before the first write whose version another writer holds; its documents
 * are read at once, and each write is judged before anything is written: made
 * already (an earlier attempt's: the document holds it), to make (the
 * document is at the version the write is guarded by, or absent for an
 * insert), or a conflict, where the run is cut again; the writes to make go
 * as INSERT_PARTS statements side by side for its inserts where the store
 * port has them (insertInParts) and its updates and deletes by `_id`
 * (writeBulk; unordered: the run's documents are distinct, so their order
 * does not matter). A version this holder reserved cannot move under it
 * (every writer of a book record reserves first), so the writes are all
 * made; if the store still answers otherwise (a refused document, an insert
 * that met an `_id` since the read), the run is read again, writes made past
 * the first one not made are undone, and that one is the conflict: what the
 * step leaves made is always a prefix of it, as makeInserts's.
 *
 * `fresh`: no attempt before this one made a write of the journal, so none
 * of the run is made yet and every version it reserved is newly its own: the
 * run is not read before it is written (every write is guarded all the same;
 * an insert that meets an `_id` is settled as above).
 */
export async function makeRun(
  db: Db,
  orgId: string,
  writes: readonly JournalWrite[],
  holder: string,
  { fresh = false }: { fresh?: boolean } = {},
): Promise<InsertsOutcome> {
  if (writes.length === 0) return { made: 0, conflict: false };
  const collection = writes[0]!.collection;
  const guarded = writes.filter((w) => w.action !== 'insert');
  const held = await reserveVersions(
    db,
    orgId,
    collection,
    guarded.map((w) => ({ id: w.id, version: w.version })),
    holder,
  );
  let end = writes.findIndex((w) => w.action !== 'insert' && !held.has(w.id));
  if (end === -1) end = writes.length;
  const run = writes.slice(0, end);
  const judged = fresh ? { todo: run, cut: run.length } : await judgeRun(db, orgId, collection, run);
  const todo = judged.todo;
  let cut = judged.cut;
  let refused: string | undefined;
  // The run's inserts side by side where the store port has them; what it declines goes with the rest.
  const left = new Set(
    await insertInParts(
      db,
      orgId,
      todo.filter((w): w is InsertWrite => w.action === 'insert'),
    ),
  );
  const bulk = todo.filter((w) => w.action !== 'insert' || left.has(w));
  if (bulk.length > 0) {
    try {
      const made = await writeBulk(db, orgId, collection, bulk);
      if (made !== bulk.length) cut = await settleRun(db, orgId, run, holder);
    } catch (err) {
      refused = storeRefusal(err) ?? undefined;
      if (refused === undefined && !isUniqueViolation(err)) throw err;
      cut = await settleRun(db, orgId, run, holder);
    }
  }
  if (refused !== undefined) return { made: cut, conflict: true, refused };
  return cut < writes.length ? { made: cut, conflict: true } : { made: writes.length, conflict: false };
}

/** The run as read now: the writes to make, and the index of the first conflict, where it is cut (its length: none). */
async function judgeRun(
  db: Db,
  orgId: string,
  collection: string,
  run: readonly JournalWrite[],
): Promise<{ todo: JournalWrite[]; cut: number }> {
  const found = await readRun(db, orgId, collection, run);
  const todo: JournalWrite[] = [];
  for (const [i, w] of run.entries()) {
    const judged = judge(w, found.get(w.id) ?? null);
    if (judged === 'conflict') return { todo, cut: i };
    if (judged === 'make') todo.push(w);
  }
  return { todo, cut: run.length };
}

/**
 * The run's writes to make, unordered: how many the store made. Updates and
 * deletes alone go by `_id` through the store port (writeByIds: in SQL on
 * FerretDB 1.x); with inserts the store declined to take together, one bulk
 * write of them all.
 */
async function writeBulk(db: Db, orgId: string, collection: string, bulk: readonly JournalWrite[]): Promise<number> {
  if (collection !== 'orgs' && bulk.every((w) => w.action !== 'insert'))
    return (await storeAdapter(db)).writeByIds(
      collection,
      orgId,
      bulk.map((w) =>
        w.action === 'update'
          ? { id: w.id, guard: { field: 'version', value: w.version }, set: { ...w.set, version: w.version + 1 } }
          : { id: w.id, guard: { field: 'version', value: w.version } },
      ),
    );
  const r = await bulkWriteBounded(
    db.collection<Doc>(collection),
    bulk.map((w) => bulkOp(orgId, w)),
    { ordered: false },
  );
  return r.insertedCount + r.matchedCount + r.deletedCount;
}

/** A write judged against its document as read: made already, to make, or a conflict. */
function judge(w: JournalWrite, doc: Doc | null): 'made' | 'make' | 'conflict' {
  switch (w.action) {
    case 'insert':
      return doc === null ? 'make' : holds(doc, w.doc) ? 'made' : 'conflict';
    case 'update':
      if (doc?.version === w.version) return 'make';
      return doc?.version === w.version + 1 && holds(doc, w.set) ? 'made' : 'conflict';
    case 'delete':
      return doc === null ? 'made' : doc.version === w.version ? 'make' : 'conflict';
  }
}

function bulkOp(orgId: string, w: JournalWrite): AnyBulkWriteOperation<Doc> {
  switch (w.action) {
    case 'insert':
      return { insertOne: { document: { ...w.doc, _id: w.id, org_id: orgId } } };
    case 'update':
      return {
        updateOne: { filter: byId(orgId, w, w.version), update: { $set: { ...w.set, version: w.version + 1 } } },
      };
    case 'delete':
      return { deleteOne: { filter: byId(orgId, w, w.version) } };
  }
}

/** The run's documents by id, read at once through the store port (by `_id`, the owner checked). */
async function readRun(
  db: Db,
  orgId: string,
  collection: string,
  run: readonly JournalWrite[],
): Promise<Map<string, Doc>> {
  if (run.length === 0) return new Map();
  const docs = (await (
    await storeAdapter(db)
  ).findByIds(
    collection,
    run.map((w) => w.id),
    { owner: orgId },
  )) as Doc[];
  return new Map(docs.map((d) => [d._id, d]));
}

/**
 * After a bulk write the store did not make whole, or a batch of inserts
 * that met a conflict (makeInserts): how much of the run is made. The
 * first write not made is the conflict; any made after it (a bulk write may
 * go on past a write that matched nothing) are undone, so what is made is a
 * prefix of the run.
 */
async function settleRun(db: Db, orgId: string, run: readonly JournalWrite[], holder: string): Promise<number> {
  const found = await readRun(db, orgId, run[0]!.collection, run);
  const made = run.findIndex((w) => judge(w, found.get(w.id) ?? null) !== 'made');
  if (made === -1) return run.length;
  for (let i = run.length - 1; i > made; i -= 1) {
    const w = run[i]!;
    if (judge(w, found.get(w.id) ?? null) === 'made') await undoWrite(db, orgId, w, holder);
  }
  return made;
}

/** Put back what `w` replaced. A write that was never made needs nothing. Undoing also bumps the version. */
export async function undoWrite(db: Db, orgId: string, w: JournalWrite, holder: string): Promise<WriteOutcome> {
  const c = coll(db, w);
  switch (w.action) {
    case 'update': {
      if (!(await reserveVersion(db, orgId, w.collection, w.id, w.version + 1, holder))) {
        // Not ours: either the write was never made (the record is still at its old version) or someone changed it since.
        return (await c.findOne(byId(orgId, w)))?.version === w.version ? 'done' : 'conflict';
      }
      const r = await c.updateOne(byId(orgId, w, w.version + 1), { $set: { ...w.before, version: w.version + 2 } });
      if (r.matchedCount === 1) return 'done';
      const doc = await c.findOne(byId(orgId, w));
      if (doc?.version === w.version) return 'done';
      return doc?.version === w.version + 2 && holds(doc, w.before) ? 'done' : 'conflict';
    }
    case 'insert': {
      // A record a revert brings back is inserted above the version it had (shared/kinds/revert/plan.ts).
      const inserted = typeof w.doc.version === 'number' ? w.doc.version : 1;
      if (!(await reserveVersion(db, orgId, w.collection, w.id, inserted, holder))) {
        return (await c.findOne(byId(orgId, w))) === null ? 'done' : 'conflict';
      }
      const r = await c.deleteOne(byId(orgId, w, inserted));
      if (r.deletedCount === 1) return 'done';
      return (await c.findOne(byId(orgId, w))) === null ? 'done' : 'conflict';
    }
    case 'delete': {
      const doc = { ...w.doc, version: w.version + 1 };
      if (await insertOnce(db, orgId, w.collection, w.id, doc)) return 'done';
      const found = await c.findOne(byId(orgId, w));
      return found?.version === w.version || found?.version === w.version + 1 ? 'done' : 'conflict';
    }
  }
}

/** Insert `_id` once; false when a document with that id is already there. */
async function insertOnce(
  db: Db,
  orgId: string,
  collection: string,
  id: string,
  fields: Record<string, unknown>,
): Promise<boolean> {
  try {
    await db.collection<Doc>(collection).insertOne({ ...fields, _id: id, org_id: orgId });
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
