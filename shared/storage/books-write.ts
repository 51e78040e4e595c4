// The books collections as the importer reads and writes them
// (shared/books/import.ts decides what to write): whole records, field by
// field, upserted by id. An unchanged record is left alone, a changed one is
// replaced with version + 1, so that plans staged against it become stale.
import { WRITES_PER_COMMAND } from './bounded-bulk-write.js';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { canonicalJson } from '../domain/plan-hash.js';
import { collections } from './collections.js';
import { reserveVersions, highestReservedVersions } from './version-reservations.js';
import { storeAdapter } from './store-adapter.js';
import { findWhereIn } from './where-in.js';

/** A record as the file holds it once normalised: `id` plus fields the importer copies without reading. */
export type BookRecord = { id: string } & Record<string, unknown>;

/** A record as stored: `_id`, the owning `org_id` (absent on orgs), `version`, and the copied fields. */
export type StoredBookRecord = { _id: string; version?: unknown } & Record<string, unknown>;

/** File section → its collection (by the handle name in collections.ts, where names are written). */
export const BOOK_SECTIONS = {
  accounts: 'ledgerAccounts',
  bank_accounts: 'bankAccounts',
  ledger_entries: 'ledgerEntries',
  bank_transactions: 'bankTransactions',
  bank_links: 'bankLinks',
  inbox_documents: 'inboxDocuments',
} as const;

export type BookSection = keyof typeof BOOK_SECTIONS;

export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Stored records already held by `orgId` and their fields, keyed by id; null for the org record itself. */
export type StoredById = Map<string, StoredBookRecord>;

const CHUNK = 1000;

/** Guarded replaces and deletes per bulkWrite: one command FerretDB can finish (shared/storage/bounded-bulk-write.ts). */
const GUARDED_CHUNK = WRITES_PER_COMMAND;

/** The collection of a section (or `orgs`), typed as whole records: the importer copies fields, it does not interpret them. */
function recordCollection(db: Db, target: BookSection | 'orgs'): Collection<StoredBookRecord> {
  const handle = target === 'orgs' ? 'orgs' : BOOK_SECTIONS[target];
  return db.collection<StoredBookRecord>(collections(db)[handle].collectionName);
}

/** The name of a section's collection. */
export function sectionCollectionName(db: Db, section: BookSection): string {
  return collections(db)[BOOK_SECTIONS[section]].collectionName;
}

/**
 * Every record of the section the org already holds, in one pass (an equality
 * on org_id: the one filter FerretDB pushes down; see ferretdb/driver-strategy.ts), instead of
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

/**
 * Of `ids`, those a record of the section holds in any organisation, through
 * the store port: on FerretDB 1.x a SQL `_id = ANY` per IN_CHUNK_SIZE ids on
 * FerretDB's own `_id` btree (docs/indexes.md "Worker reads in SQL"). why:
 * through FerretDB, more than IN_CHUNK_SIZE ids across
 * every organisation is one pass over the whole collection (ferretdb/driver-strategy.ts):
 * 14 s a section when the bench loaded a 2,000-size org into a store holding
 * 100,000-size ones.
 */
export async function findTakenIds(db: Db, section: BookSection, ids: readonly string[]): Promise<string[]> {
  const taken = await (
    await storeAdapter(db)
  ).findByIds(collections(db)[BOOK_SECTIONS[section]].collectionName, ids, { fields: ['_id'] });
  return taken.map((doc) => doc._id as string);
}

/** The org a record's version reservations are filed under: its own, or for the org record, the org itself. */
const reservationOrg = (orgId: string | null, id: string): string => orgId ?? id;

/**
 * Replace guarded records GUARDED_CHUNK at a time, each after reserving the
 * version it is guarded by (shared/storage/version-reservations.ts): on FerretDB a
 * guarded replace alone is a read then a write by `_id`, which an apply's
 * write of the same record could interleave with. Returns how many were
 * written; a record whose reservation another writer holds is not.
 */
async function replaceReserved(
  db: Db,
  collection: Collection<StoredBookRecord>,
  target: BookSection | 'orgs',
  orgId: string | null,
  holder: string,
  replaces: { id: string; version: number; replacement: Omit<StoredBookRecord, '_id'> }[],
): Promise<number> {
  let written = 0;
  for (let i = 0; i < replaces.length; i += GUARDED_CHUNK) {
    const batch = replaces.slice(i, i + GUARDED_CHUNK);
    const reservedIds = new Set<string>();
    for (const [org, group] of groupByOrg(batch, orgId)) {
      for (const id of await reserveVersions(
        db,
        org,
        collection.collectionName,
        group.map((r) => ({ id: r.id, version: r.version })),
        holder,
      ))
        reservedIds.add(id);
    }
    const ops: AnyBulkWriteOperation<StoredBookRecord>[] = batch
      .filter((r) => reservedIds.has(r.id))
      .map((r) => ({ replaceOne: { filter: { _id: r.id, version: r.version }, replacement: r.replacement } }));
    if (ops.length > 0) written += (await collection.bulkWrite(ops, { ordered: false })).matchedCount;
  }
  return written;
}

function groupByOrg<T extends { id: string }>(items: readonly T[], orgId: string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const org = reservationOrg(orgId, item.id);
    out.set(org, [...(out.get(org) ?? []), item]);
  }
  return out;
}

/**
 * Insert the records not in `stored`, replace those whose content changed
 * (version + 1, guarded by the version read and its reservation), leave the rest.
 * `orgId` null writes the org record itself, which carries no org_id.
 * Versions only grow: a record inserted under an id that was reserved before
 * (deleted since) starts above the highest version ever reserved.
 * `holder`: this import's reservation holder (version-reservations.ts newImportHolder).
 */
export async function upsertRecords(
  db: Db,
  target: BookSection | 'orgs',
  orgId: string | null,
  records: readonly BookRecord[],
  stored: StoredById,
  holder: string,
): Promise<UpsertCounts> {
  const collection = recordCollection(db, target);
  const counts = { inserted: 0, updated: 0, unchanged: 0 };
  for (let i = 0; i < records.length; i += CHUNK) {
    const inserts: AnyBulkWriteOperation<StoredBookRecord>[] = [];
    const replaces: { id: string; version: number; replacement: Omit<StoredBookRecord, '_id'> }[] = [];
    const chunk = records.slice(i, i + CHUNK);
    const fresh = chunk.filter((r) => !stored.has(r.id)).map((r) => r.id);
    const reservedBefore =
      orgId === null || fresh.length === 0
        ? new Map<string, number>()
        : await highestReservedVersions(db, orgId, collection.collectionName, fresh);
    for (const record of chunk) {
      const { id, version: fileVersion, ...fields } = record;
      const content = orgId === null ? fields : { org_id: orgId, ...fields };
      const existing = stored.get(id);
      if (!existing) {
        const version = Math.max(Number(fileVersion ?? 1), (reservedBefore.get(id) ?? 0) + 1);
        inserts.push({ insertOne: { document: { _id: id, ...content, version } } });
        counts.inserted += 1;
        continue;
      }
      const { _id, version: storedVersion, ...storedContent } = existing;
      if (canonicalJson(storedContent) === canonicalJson(content)) {
        counts.unchanged += 1;
        continue;
      }
      replaces.push({
        id,
        version: Number(storedVersion ?? 0),
        replacement: { ...content, version: Number(storedVersion ?? 0) + 1 },
      });
      counts.updated += 1;
    }
    if (inserts.length > 0) await collection.bulkWrite(inserts, { ordered: false });
    if (replaces.length > 0) {
      const written = await replaceReserved(db, collection, target, orgId, holder, replaces);
      // A replace whose version another writer reserved, or that no longer matched: the record changed since (an apply, another import).
      if (written < replaces.length)
        throw new Error(`${target}: ${replaces.length - written} record(s) changed during the import`);
    }
  }
  return counts;
}

/**
 * Put a section back as `stored` held it, after an import that wrote some of
 * `records` and then failed (MongoDB without transactions:
 * docs/guide/importing-books.md): records it inserted are deleted, records it replaced get their old
 * content back under a NEW version (the one the import wrote + 1): versions
 * only grow, so a plan staged against the half-written books never passes
 * its version check against other content later (ABA). Each write is
 * guarded by the version the import wrote and reserves it first, so a record
 * someone else changed meanwhile is left alone.
 */
export async function undoUpsert(
  db: Db,
  target: BookSection | 'orgs',
  orgId: string | null,
  records: readonly BookRecord[],
  stored: StoredById,
  holder: string,
): Promise<void> {
  const collection = recordCollection(db, target);
  for (let i = 0; i < records.length; i += CHUNK) {
    const chunk = records.slice(i, i + CHUNK);
    const replaces: { id: string; version: number; replacement: Omit<StoredBookRecord, '_id'> }[] = [];
    for (const record of chunk) {
      const existing = stored.get(record.id);
      if (!existing) continue;
      const { _id, ...previous } = existing;
      const written = Number(existing.version ?? 0) + 1;
      replaces.push({ id: _id, version: written, replacement: { ...previous, version: written + 1 } });
    }
    await replaceReserved(db, collection, target, orgId, holder, replaces);
    await deleteInserted(
      db,
      collection,
      target,
      orgId,
      holder,
      chunk.filter((r) => !stored.has(r.id)),
    );
  }
}

/** Delete what the import inserted of `records`: each still holding the file's content, at the version it has, reserved first. */
async function deleteInserted(
  db: Db,
  collection: Collection<StoredBookRecord>,
  target: BookSection | 'orgs',
  orgId: string | null,
  holder: string,
  records: readonly BookRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const byId = new Map(records.map((r) => [r.id, r]));
  const current = await findWhereIn(
    db,
    collection as unknown as Collection<StoredBookRecord & { org_id: string }>,
    orgId,
    '_id',
    [...byId.keys()],
  );
  const ours = current.filter((doc) => {
    const { _id, version, ...content } = doc;
    const { id, version: fileVersion, ...fields } = byId.get(_id)!;
    return canonicalJson(content) === canonicalJson(orgId === null ? fields : { org_id: orgId, ...fields });
  });
  for (let i = 0; i < ours.length; i += GUARDED_CHUNK) {
    const batch = ours.slice(i, i + GUARDED_CHUNK).map((d) => ({ id: d._id, version: Number(d.version) }));
    const reservedIds = new Set<string>();
    for (const [org, group] of groupByOrg(batch, orgId)) {
      for (const id of await reserveVersions(db, org, collection.collectionName, group, holder)) reservedIds.add(id);
    }
    const ops: AnyBulkWriteOperation<StoredBookRecord>[] = batch
      .filter((d) => reservedIds.has(d.id))
      .map((d) => ({ deleteOne: { filter: { _id: d.id, version: d.version } } }));
    if (ops.length > 0) await collection.bulkWrite(ops, { ordered: false });
  }
}
