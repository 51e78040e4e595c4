// Making one journal write (shared/domain/apply-journal.ts), and undoing it.
// Every write is guarded by the version the plan saw and bumps it, and every
// write is idempotent: when the guard does not match, the document is read
// and the write counts as made if the document already is what the write
// makes it (a retried job after a crash). Anything else is a conflict: the
// document changed under the journal (only an import can do that while the
// operation holds its scope locks).
//
// Before an update or a delete guarded by version V, the journal claims V
// (shared/storage/record-claims.ts): on FerretDB the guarded write alone is a
// read then a write by `_id`, which a racing import could interleave with.
// The holder is the operation, so a retried or resumed journal holds its
// claims still. Inserts need no claim: a unique `_id` already settles them.
import type { Db, Document, Filter } from 'mongodb';
import type { JournalWrite } from '../domain/apply-journal.js';
import { canonicalJson } from '../domain/plan-hash.js';
import { claimVersion } from './record-claims.js';
import { isUniqueViolation } from './unique-violation.js';

export type WriteOutcome = 'done' | 'conflict';

type Doc = Document & { _id: string; org_id: string; version?: number };

const coll = (db: Db, w: JournalWrite) => db.collection<Doc>(w.collection);
const byId = (orgId: string, id: string, version?: number): Filter<Doc> =>
  (version === undefined ? { _id: id, org_id: orgId } : { _id: id, org_id: orgId, version });

/** True when every field of `fields` has this value in `doc`. */
function holds(doc: Doc | null, fields: Record<string, unknown>): boolean {
  if (!doc) return false;
  return Object.entries(fields).every(([k, v]) => doc[k] !== undefined && canonicalJson(doc[k]) === canonicalJson(v));
}

/** Make `w` for `holder` (the operation: record-claims.ts operationHolder). */
export async function makeWrite(db: Db, orgId: string, w: JournalWrite, holder: string): Promise<WriteOutcome> {
  const c = coll(db, w);
  switch (w.action) {
    case 'update': {
      // Another writer holds the version: our write was never made (only the holder writes), so the record changed.
      if (!(await claimVersion(db, orgId, w.collection, w.id, w.version, holder))) return 'conflict';
      const r = await c.updateOne(byId(orgId, w.id, w.version), { $set: { ...w.set, version: w.version + 1 } });
      if (r.matchedCount === 1) return 'done';
      const doc = await c.findOne(byId(orgId, w.id));
      return doc?.version === w.version + 1 && holds(doc, w.set) ? 'done' : 'conflict';
    }
    case 'insert': {
      if (await insertOnce(db, orgId, w.collection, w.id, w.doc)) return 'done';
      return holds(await c.findOne(byId(orgId, w.id)), w.doc) ? 'done' : 'conflict';
    }
    case 'delete': {
      if (!(await claimVersion(db, orgId, w.collection, w.id, w.version, holder))) return 'conflict';
      const r = await c.deleteOne(byId(orgId, w.id, w.version));
      if (r.deletedCount === 1) return 'done';
      return (await c.findOne(byId(orgId, w.id))) === null ? 'done' : 'conflict';
    }
  }
}

/** Put back what `w` replaced. A write that was never made needs nothing. Undoing also bumps the version. */
export async function undoWrite(db: Db, orgId: string, w: JournalWrite, holder: string): Promise<WriteOutcome> {
  const c = coll(db, w);
  switch (w.action) {
    case 'update': {
      if (!(await claimVersion(db, orgId, w.collection, w.id, w.version + 1, holder))) {
        // Not ours: either the write was never made (the record is still at its old version) or someone changed it since.
        return (await c.findOne(byId(orgId, w.id)))?.version === w.version ? 'done' : 'conflict';
      }
      const r = await c.updateOne(byId(orgId, w.id, w.version + 1), { $set: { ...w.before, version: w.version + 2 } });
      if (r.matchedCount === 1) return 'done';
      const doc = await c.findOne(byId(orgId, w.id));
      if (doc?.version === w.version) return 'done';
      return doc?.version === w.version + 2 && holds(doc, w.before) ? 'done' : 'conflict';
    }
    case 'insert': {
      if (!(await claimVersion(db, orgId, w.collection, w.id, 1, holder))) {
        return (await c.findOne(byId(orgId, w.id))) === null ? 'done' : 'conflict';
      }
      const r = await c.deleteOne(byId(orgId, w.id, 1));
      if (r.deletedCount === 1) return 'done';
      return (await c.findOne(byId(orgId, w.id))) === null ? 'done' : 'conflict';
    }
    case 'delete': {
      const doc = { ...w.doc, version: w.version + 1 };
      if (await insertOnce(db, orgId, w.collection, w.id, doc)) return 'done';
      const found = await c.findOne(byId(orgId, w.id));
      return found?.version === w.version || found?.version === w.version + 1 ? 'done' : 'conflict';
    }
  }
}

/** Insert `_id` once; false when a document with that id is already there. */
async function insertOnce(db: Db, orgId: string, collection: string, id: string, fields: Record<string, unknown>): Promise<boolean> {
  try {
    await db.collection<Doc>(collection).insertOne({ ...fields, _id: id, org_id: orgId });
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
