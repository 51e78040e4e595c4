// The materialized duplicate overview's store (docs/design/duplicate-overview.md):
// the overview documents (one per org and inbox version, `_id` =
// `ORG:VERSION`) and their chunks, read and written here; the lease → load →
// group → write computation that decides what to write is the read job's
// (worker/jobs/inbox-duplicates-list.ts), the grouping and chunking the
// domain's (shared/domain/duplicate-groups.ts, duplicate-overview.ts).
import { LRUCache } from 'lru-cache';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { GroupPage, GroupPageOptions } from '../domain/duplicate-groups.js';
import { pageFromChunks, type ChunkSummary, type GroupPiece } from '../domain/duplicate-overview.js';
import { collections, type DuplicateOverviewChunkDoc, type DuplicateOverviewDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { currentInboxVersion } from './inbox-version.js';
import { storeAdapter } from './store-adapter.js';

/** Chunk documents per bulk write: a few MB per message at most. */
const WRITE_BATCH = 20;

export interface OverviewPage extends GroupPage {
  /** The inbox version the page was read from. */
  version: string;
  /** True when this call computed the overview (the one reader that won the lease). */
  computed: boolean;
}

/**
 * Ready overviews and their chunks never change once ready (an `_id` names
 * one inbox version, docs/design/duplicate-overview.md), so a process may keep
 * them: then a page costs one store read, the version. Bounded by the JSON
 * length of what it holds; the least recently used go first (lru-cache).
 */
export class StoredOverviewCache {
  private readonly entries: LRUCache<string, { value: unknown; size: number }>;
  constructor(maxChars: number) {
    this.entries = new LRUCache({ maxSize: maxChars, sizeCalculation: (entry) => Math.max(1, entry.size) });
  }

  /** Keep `value` under `key` (a chunk its computing reader just wrote); one larger than the whole cache is not kept. */
  set(key: string, value: unknown, size: number): void {
    this.entries.set(key, { value, size });
  }

  /** The cached value of `key`, else what `load` finds, kept unless it is null (not ready: the next call looks again). */
  async get<T>(key: string, load: () => Promise<{ value: T; size: number } | null>): Promise<T | null> {
    const hit = this.entries.get(key);
    if (hit) return hit.value as T;
    const loaded = await load();
    // An entry larger than the whole cache is answered, not kept (lru-cache refuses it).
    if (loaded) this.entries.set(key, loaded);
    return loaded?.value ?? null;
  }
}

/**
 * A page from the stored overview of the current inbox version, or null when
 * none is ready (missing, being computed, or its chunks removed meanwhile by a
 * newer version): reading a stored page needs no computation, so the API
 * reads it itself and enqueues a read job only for null
 * (docs/design/duplicate-overview.md). Never takes a lease, computes or waits.
 * The version is read from the store on every call (never cached), as in
 * readyOverview: a page is never older than the version current when the
 * call began.
 */
export async function readStoredDuplicatePage(
  db: Db,
  orgId: string,
  options: GroupPageOptions,
  cache: StoredOverviewCache,
): Promise<OverviewPage | null> {
  // The version and the overview's index are read by `_id` through the store port (in SQL on FerretDB 1.x).
  const version = await currentInboxVersion(db, orgId);
  const id = overviewId(orgId, version);
  const loadIndex = async (): Promise<{ value: ChunkSummary[]; size: number } | null> => {
    const overview = (await (
      await storeAdapter(db)
    ).findById(collections(db).duplicateOverviews.collectionName, id, {
      state: 1,
      chunks_json: 1,
    })) as DuplicateOverviewDoc | null;
    // Not ready: not cached, so the next call looks again.
    if (overview?.state !== 'ready') return null;
    const json = overview.chunks_json ?? '[]';
    return { value: JSON.parse(json) as ChunkSummary[], size: json.length };
  };
  const index = await cache.get(`${id}#index`, loadIndex);
  if (!index) return null;
  const page = await pageFromChunks(index, options, (n) => cachedChunk(db, id, n, cache));
  return page && { ...page, version, computed: false };
}

/**
 * Chunk `n` of overview `overviewId`, from `cache` or read and kept there.
 * Safe to keep: an overview's chunks never change once written, only go
 * (when a newer version is ready), and a reader asks only for the chunks
 * of the version it found current. Read by `_id` alone (it starts with the
 * org's id): one GIN lookup on FerretDB, no org-wide bitmap to intersect with.
 */
export async function cachedChunk(
  db: Db,
  overviewId: string,
  n: number,
  cache: StoredOverviewCache,
): Promise<GroupPiece[] | null> {
  const id = overviewChunkId(overviewId, n);
  return cache.get(id, async () => {
    const doc = await collections(db).duplicateOverviewChunks.findOne({ _id: id }, { projection: { pieces_json: 1 } });
    return doc ? { value: JSON.parse(doc.pieces_json) as GroupPiece[], size: doc.pieces_json.length } : null;
  });
}

export function overviewId(orgId: string, version: string): string {
  return `${orgId}:${version}`;
}

/** The `_id` of an overview's chunk `n`, also its key in a StoredOverviewCache (cachedChunk). */
export function overviewChunkId(overviewId: string, n: number): string {
  return `${overviewId}:${n}`;
}

/** The org's current inbox version and the overview stored for it, if any. */
export async function findCurrentOverview(
  db: Db,
  orgId: string,
): Promise<{ id: string; version: string; existing: DuplicateOverviewDoc | null }> {
  const version = await currentInboxVersion(db, orgId);
  const id = overviewId(orgId, version);
  return {
    id,
    version,
    existing: (await (
      await storeAdapter(db)
    ).findById(collections(db).duplicateOverviews.collectionName, id)) as DuplicateOverviewDoc | null,
  };
}

/** Insert the lease to compute an overview; false when another reader's lease for that `_id` is there first (unique `_id`). */
export async function insertOverviewLease(db: Db, lease: DuplicateOverviewDoc): Promise<boolean> {
  try {
    await collections(db).duplicateOverviews.insertOne(lease);
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}

/** Remove that lease (only that one: guarded by its claimed_at). */
export async function deleteOverviewLease(db: Db, id: string, leasedAt: string): Promise<void> {
  await collections(db).duplicateOverviews.deleteOne({ _id: id, claimed_at: leasedAt });
}

/**
 * Write an overview's chunks. Replace, not insert: a reader that took over an
 * abandoned lease may meet the dead reader's chunks. On FerretDB 1.x each
 * batch is first inserted in one SQL statement (the store port's `insertTogether`) (docs/indexes.md
 * "Writes in SQL"); a batch refused there (a dead reader's chunk under the same
 * `_id`) or declined (no table yet) is replaced through the driver.
 * why: through FerretDB each replace-with-upsert is a read and a write of
 * a ~75 KB document; a 2,000-size organisation's 5–6 chunks took 33–45 ms
 * that way and 14–25 ms as one insert, on the first read that everyone
 * waiting for the overview waits for (docs/design/duplicate-overview.md "Measured").
 */
export async function writeOverviewChunks(db: Db, docs: DuplicateOverviewChunkDoc[]): Promise<void> {
  const c = collections(db);
  const store = await storeAdapter(db);
  for (let i = 0; i < docs.length; i += WRITE_BATCH) {
    const batch = docs.slice(i, i + WRITE_BATCH);
    if (
      (await store.insertTogether([{ collection: c.duplicateOverviewChunks.collectionName, docs: batch }])) === 'stored'
    )
      continue;
    const ops: AnyBulkWriteOperation<DuplicateOverviewChunkDoc>[] = batch.map((doc) => ({
      replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true },
    }));
    await c.duplicateOverviewChunks.bulkWrite(ops, { ordered: false });
  }
}

/**
 * Mark the leased overview ready with its result, guarded by claimed_at (a lease
 * replaced as abandoned belongs to its new reader, whose result is the same).
 * `gone`: no overview with that `_id` is left (a newer version became ready
 * first and removed this lease).
 */
export async function markOverviewReady(
  db: Db,
  lease: DuplicateOverviewDoc,
  result: Partial<DuplicateOverviewDoc>,
): Promise<'marked' | 'gone'> {
  const c = collections(db);
  const marked = await c.duplicateOverviews.updateOne(
    { _id: lease._id, claimed_at: lease.claimed_at },
    { $set: result },
  );
  if (
    marked.matchedCount === 0 &&
    !(await c.duplicateOverviews.findOne({ _id: lease._id }, { projection: { _id: 1 } }))
  )
    return 'gone';
  return 'marked';
}

/** Remove an overview's chunks. */
export async function deleteOverviewChunks(db: Db, orgId: string, overviewId: string): Promise<void> {
  await collections(db).duplicateOverviewChunks.deleteMany({ org_id: orgId, overview_id: overviewId });
}

/**
 * Remove the org's overviews leased before this one, chunks first. They can
 * only be older versions (this one is current and just became ready); a
 * reader still paging one of them finds a chunk gone and reads again.
 * A lease taken after this one (a newer version being computed) is kept.
 */
export async function removeOlderOverviews(db: Db, current: DuplicateOverviewDoc): Promise<void> {
  const c = collections(db);
  const all = await c.duplicateOverviews
    .find({ org_id: current.org_id }, { projection: { _id: 1, claimed_at: 1 } })
    .toArray();
  for (const old of all) {
    if (old._id === current._id || old.claimed_at > current.claimed_at) continue;
    await c.duplicateOverviewChunks.deleteMany({ org_id: current.org_id, overview_id: old._id });
    await c.duplicateOverviews.deleteOne({ _id: old._id, claimed_at: old.claimed_at });
  }
}

/**
 * Whether an overview the organisation still has stored (any inbox version)
 * lists a group with this id: read only when the id is no current group, to
 * tell a group whose members changed (`stale_group`) from one that never
 * existed (docs/design/duplicate-overview.md "Resolving a group").
 */
export async function storedOverviewListsGroup(db: Db, orgId: string, groupId: string): Promise<boolean> {
  const chunks = collections(db).duplicateOverviewChunks.find({ org_id: orgId }, { projection: { pieces_json: 1 } });
  const needle = JSON.stringify(groupId);
  for await (const chunk of chunks) {
    if (!chunk.pieces_json.includes(needle)) continue;
    if ((JSON.parse(chunk.pieces_json) as GroupPiece[]).some((piece) => piece.group.group_id === groupId)) return true;
  }
  return false;
}

/**
 * The group with this id in the organisation's overview of the current inbox
 * version, when that overview is ready: 'not_ready' when there is none yet
 * (the caller groups the inbox itself), null when the overview does not list
 * it. A group split over chunks is joined again. One read of the chunks by
 * the (org_id, overview_id) equality.
 */
export async function findGroupInCurrentOverview(
  db: Db,
  orgId: string,
  groupId: string,
): Promise<GroupPiece['group'] | null | 'not_ready'> {
  const { existing } = await findCurrentOverview(db, orgId);
  if (existing?.state !== 'ready') return 'not_ready';
  const chunks = await collections(db)
    .duplicateOverviewChunks.find(
      { org_id: orgId, overview_id: existing._id },
      { projection: { n: 1, pieces_json: 1 } },
    )
    .toArray();
  // A chunk gone (a newer version became ready and removed this one): group the inbox instead.
  if (chunks.length !== (existing.chunk_count ?? 0)) return 'not_ready';
  const needle = JSON.stringify(groupId);
  const pieces = chunks
    .sort((a, b) => a.n - b.n)
    .filter((chunk) => chunk.pieces_json.includes(needle))
    .flatMap((chunk) =>
      (JSON.parse(chunk.pieces_json) as GroupPiece[]).filter((piece) => piece.group.group_id === groupId),
    )
    .sort((a, b) => a.part - b.part);
  if (pieces.length === 0) return null;
  return { ...pieces[0]!.group, documents: pieces.flatMap((piece) => piece.group.documents) };
}
