// The books collections as the importer reads and writes them
// (shared/books/import.ts decides what to write): whole records, field by
// field, upserted by id. An unchanged record is left alone, a changed one is
// replaced with version + 1, so that plans staged against it become stale.
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { canonicalJson } from '../domain/plan-hash.js';
import { collections } from './collections.js';
import { findWhereIn } from './where-in.js';

/** A record as the file holds it once normalised: `id` plus fields the importer copies without reading. */
export type BookRecord = { id: string } & Record<string, unknown>;

/** A record as stored: `_id`, the owning `org_id` (absent on orgs), `version`, and the copied fields. */
export type StoredBookRecord = { _id: string; version?: unknown } & Record<string, unknown>;

/** File section → its collection (by the handle name in collections.ts, where names are written). */
export const BOOK_SECTIONS = {
  bank_accounts: 'bankAccounts',
  ledger_entries: 'ledgerEntries',
  bank_transactions: 'bankTransactions',
  bank_links: 'bankLinks',
  inbox_documents: 'inboxDocuments',
} as const;

export type BookSection = keyof typeof BOOK_SECTIONS;

export interface UpsertCounts { inserted: number; updated: number; unchanged: number }

/** Stored records already held by `orgId` and their fields, keyed by id; null for the org record itself. */
export type StoredById = Map<string, StoredBookRecord>;

const CHUNK = 1000;

/**
 * Guarded replaces and deletes per bulkWrite. FerretDB 1.24 runs each update
 * of one `update` command on a PostgreSQL connection of its own pool (50):
 * a re-import that sent hundreds of changed records at once, while reads held
 * the rest of the pool, left FerretDB waiting for a connection for good.
 * Batches this small keep the pool free and cost MongoDB next to nothing.
 */
const GUARDED_CHUNK = 32;

/** Inserts in one bulkWrite per CHUNK; guarded replaces and deletes GUARDED_CHUNK at a time. */
async function writeInBatches(collection: Collection<StoredBookRecord>, ops: AnyBulkWriteOperation<StoredBookRecord>[]): Promise<number> {
  const inserts = ops.filter((op) => 'insertOne' in op);
  const guarded = ops.filter((op) => !('insertOne' in op));
  let matched = 0;
  if (inserts.length > 0) await collection.bulkWrite(inserts, { ordered: false });
  for (let i = 0; i < guarded.length; i += GUARDED_CHUNK) {
    const result = await collection.bulkWrite(guarded.slice(i, i + GUARDED_CHUNK), { ordered: false });
    matched += result.matchedCount + result.deletedCount;
  }
  return matched;
}

/** The collection of a section (or `orgs`), typed as whole records: the importer copies fields, it does not interpret them. */
function recordCollection(db: Db, target: BookSection | 'orgs'): Collection<StoredBookRecord> {
  const handle = target === 'orgs' ? 'orgs' : BOOK_SECTIONS[target];
  return db.collection<StoredBookRecord>(collections(db)[handle].collectionName);
}

/**
 * Every record of the section the org already holds, in one pass (an equality
 * on org_id: the one filter FerretDB pushes down; see where-in.ts), instead of
 * an `$in` per chunk.
 */
export async function readSectionOfOrg(db: Db, section: BookSection, orgId: string): Promise<StoredById> {
  const docs = await recordCollection(db, section).find({ org_id: orgId }).toArray();
  return new Map(docs.map((d) => [d._id, d]));
}

/** The stored org record, if any, keyed by its id as readSectionOfOrg keys records. */
export async function readOrgRecord(db: Db, orgId: string): Promise<StoredById> {
  const stored = await recordCollection(db, 'orgs').findOne({ _id: orgId });
  return new Map(stored ? [[orgId, stored]] : []);
}

/** Of `ids`, those a record of the section holds in any organisation. */
export async function findTakenIds(db: Db, section: BookSection, ids: readonly string[]): Promise<string[]> {
  const collection = db.collection<{ _id: string; org_id: string }>(collections(db)[BOOK_SECTIONS[section]].collectionName);
  const taken = await findWhereIn(db, collection, null, '_id', ids, { _id: 1 });
  return taken.map((doc) => doc._id);
}

/**
 * Insert the records not in `stored`, replace those whose content changed
 * (version + 1, guarded by the version read), leave the rest. `orgId` null
 * writes the org record itself, which carries no org_id.
 */
export async function upsertRecords(
  db: Db, target: BookSection | 'orgs', orgId: string | null, records: readonly BookRecord[], stored: StoredById,
): Promise<UpsertCounts> {
  const collection = recordCollection(db, target);
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const ops: AnyBulkWriteOperation<StoredBookRecord>[] = [];
    for (const record of records.slice(i, i + CHUNK)) {
      const { id, version: fileVersion, ...fields } = record;
      const content = orgId === null ? fields : { org_id: orgId, ...fields };
      const existing = stored.get(id);
      if (!existing) {
        ops.push({ insertOne: { document: { _id: id, ...content, version: fileVersion ?? 1 } } });
        counts.inserted += 1;
        continue;
      }
      const { _id, version: storedVersion, ...storedContent } = existing;
      if (canonicalJson(storedContent) === canonicalJson(content)) {
        counts.unchanged += 1;
        continue;
      }
      ops.push({ replaceOne: { filter: { _id: id, version: storedVersion }, replacement: { ...content, version: Number(storedVersion ?? 0) + 1 } } });
      counts.updated += 1;
    }
    if (ops.length > 0) {
      const replaces = ops.filter((op) => 'replaceOne' in op).length;
      const matched = await writeInBatches(collection, ops);
      // A replace guarded by the version read matched nothing: the record changed since (an apply, another import).
      if (matched < replaces) throw new Error(`${target}: ${replaces - matched} record(s) changed during the import`);
    }
  }
  return counts;
}

/**
 * Put a section back as `stored` held it, after an import that wrote some of
 * `records` and then failed (MongoDB without transactions: docs/guide/importing-books.md "Loading
 * books"): records it inserted are deleted, records it replaced get their old
 * content and version back. Each write is guarded by the version the import
 * wrote, so a record someone else changed meanwhile is left alone.
 */
export async function undoUpsert(
  db: Db, target: BookSection | 'orgs', orgId: string | null, records: readonly BookRecord[], stored: StoredById,
): Promise<void> {
  const collection = recordCollection(db, target);
  const owner = orgId === null ? {} : { org_id: orgId };
  for (let i = 0; i < records.length; i += CHUNK) {
    const ops: AnyBulkWriteOperation<StoredBookRecord>[] = [];
    for (const record of records.slice(i, i + CHUNK)) {
      const existing = stored.get(record.id);
      if (!existing) {
        ops.push({ deleteOne: { filter: { _id: record.id, ...owner, version: record.version ?? 1 } } });
        continue;
      }
      const { _id, ...previous } = existing;
      ops.push({ replaceOne: { filter: { _id, version: Number(existing.version ?? 0) + 1 }, replacement: previous } });
    }
    if (ops.length > 0) await writeInBatches(collection, ops);
  }
}
