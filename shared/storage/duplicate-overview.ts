// The materialized duplicate overview (docs/design/duplicate-overview.md): the
// grouping of an organisation's inbox is computed once per inbox version,
// stored in chunks, and every page is read from those chunks by cursor.
//
// One recompute per version, shared by concurrent readers: the first reader
// to find no overview for (org, version) inserts `{_id: ORG:VERSION, state:
// 'computing'}`; MongoDB's unique `_id` lets exactly one insert win (FerretDB's
// updateOne is no atomic compare-and-set, so a claim is an insert). The others
// wait until it is `ready`. A claim older than CLAIM_ABANDONED_MS is taken
// to be dead (its worker crashed) and is replaced.
import { LRUCache } from 'lru-cache';
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { InboxDocument } from '../domain/books.js';
import { findDuplicateGroups, type GroupPage, type GroupPageOptions } from '../domain/duplicate-groups.js';
import { chunkGroups, pageFromChunks, type ChunkSummary, type GroupPiece } from '../domain/duplicate-overview.js';
import { collections, type DuplicateOverviewChunkDoc, type DuplicateOverviewDoc } from './collections.js';
import { isDuplicateKey } from './duplicate-key.js';
import { findGroupableInboxDocuments } from './inbox-read.js';
import { currentInboxVersion } from './inbox-version.js';

/** A computing claim older than this is abandoned (grouping 100,000 documents takes well under a minute). */
export const CLAIM_ABANDONED_MS = 5 * 60_000;
/** How often a reader waiting for another's computation looks again. */
const WAIT_POLL_MS = 20;
/** Chunk documents per bulk write: a few MB per message at most. */
const WRITE_BATCH = 20;
/** A page whose chunks were cleaned up under it (a newer version became ready) is read again from the top, this often at most. */
const PAGE_ATTEMPTS = 3;

export class OverviewWaitTimeout extends Error {
  constructor(overviewId: string) {
    super(`the duplicate overview ${overviewId} was still being computed when the read's deadline passed`);
  }
}

export interface OverviewPage extends GroupPage {
  /** The inbox version the page was read from. */
  version: string;
  /** True when this call computed the overview (the one reader that won the claim). */
  computed: boolean;
}

/**
 * A page of the organisation's duplicate groups: exactly what pageGroups over
 * findDuplicateGroups of the current inbox answers, read from the overview of
 * the current inbox version (computed first if nobody has). `deadline`: stop
 * waiting for another reader's computation then (OverviewWaitTimeout).
 */
export async function readDuplicatePage(db: Db, orgId: string, options: GroupPageOptions, deadline?: Date): Promise<OverviewPage> {
  for (let attempt = 1; ; attempt++) {
    const { overview, computed } = await readyOverview(db, orgId, deadline);
    const index = JSON.parse(overview.chunks_json ?? '[]') as ChunkSummary[];
    const page = await pageFromChunks(index, options, (n) => loadChunk(db, overview._id, n));
    if (page) return { ...page, version: overview.version, computed };
    // A chunk was gone: a newer version became ready and cleaned this one up meanwhile.
    if (attempt >= PAGE_ATTEMPTS) throw new Error(`duplicate overview ${overview._id} lost its chunks ${PAGE_ATTEMPTS} times while being read`);
  }
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
 * (docs/design/duplicate-overview.md). Never claims, computes or waits.
 * The version is read from the store on every call (never cached), as in
 * readyOverview: a page is never older than the version current when the
 * call began.
 */
export async function readStoredDuplicatePage(db: Db, orgId: string, options: GroupPageOptions, cache: StoredOverviewCache): Promise<OverviewPage | null> {
  const version = await currentInboxVersion(db, orgId);
  const id = overviewId(orgId, version);
  const loadIndex = async (): Promise<{ value: ChunkSummary[]; size: number } | null> => {
    const overview = await collections(db).duplicateOverviews.findOne({ _id: id }, { projection: { state: 1, chunks_json: 1 } });
    // Not ready: not cached, so the next call looks again.
    if (overview?.state !== 'ready') return null;
    const json = overview.chunks_json ?? '[]';
    return { value: JSON.parse(json) as ChunkSummary[], size: json.length };
  };
  const index = await cache.get(`${id}#index`, loadIndex);
  if (!index) return null;
  const load = async (n: number): Promise<{ value: GroupPiece[]; size: number } | null> => {
    const doc = await collections(db).duplicateOverviewChunks.findOne({ _id: `${id}:${n}` }, { projection: { pieces_json: 1 } });
    return doc ? { value: JSON.parse(doc.pieces_json) as GroupPiece[], size: doc.pieces_json.length } : null;
  };
  const page = await pageFromChunks(index, options, (n) => cache.get(`${id}:${n}`, () => load(n)));
  return page && { ...page, version, computed: false };
}

/** The ready overview of the current inbox version: stored, computed here, or awaited from the reader computing it. */
export async function readyOverview(db: Db, orgId: string, deadline?: Date): Promise<{ overview: DuplicateOverviewDoc; computed: boolean }> {
  const overviews = collections(db).duplicateOverviews;
  for (;;) {
    // Read again on every turn: an import finishing meanwhile makes the awaited version obsolete.
    const version = await currentInboxVersion(db, orgId);
    const id = overviewId(orgId, version);
    const existing = await overviews.findOne({ _id: id });
    if (existing?.state === 'ready') return { overview: existing, computed: false };
    if (!existing) {
      const claim: DuplicateOverviewDoc = { _id: id, org_id: orgId, version, state: 'computing', claimed_at: new Date().toISOString() };
      try {
        await overviews.insertOne(claim);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        continue; // another reader claimed it first: wait for theirs
      }
      return { overview: await computeOverview(db, claim), computed: true };
    }
    if (Date.now() - Date.parse(existing.claimed_at) > CLAIM_ABANDONED_MS) {
      // Its reader died: remove that claim (only that one) and claim again.
      await overviews.deleteOne({ _id: id, claimed_at: existing.claimed_at });
      continue;
    }
    if (deadline && Date.now() >= deadline.getTime()) throw new OverviewWaitTimeout(id);
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

function overviewId(orgId: string, version: string): string {
  return `${orgId}:${version}`;
}

/** Group the inbox as it is now, write the chunks, then mark the claim ready; older overviews of the org are removed. */
async function computeOverview(db: Db, claim: DuplicateOverviewDoc): Promise<DuplicateOverviewDoc> {
  const c = collections(db);
  const documents = await findGroupableInboxDocuments(db, claim.org_id);
  // Grouping reads only the projected fields (id, received_at, status, file.sha256, extracted).
  const groups = findDuplicateGroups(documents as InboxDocument[]);
  const { chunks, index } = chunkGroups(groups);
  const docs: DuplicateOverviewChunkDoc[] = chunks.map((pieces, n) => ({
    _id: `${claim._id}:${n}`, org_id: claim.org_id, overview_id: claim._id, n, pieces_json: JSON.stringify(pieces),
  }));
  // Replace, not insert: a reader that took over an abandoned claim may meet the dead reader's chunks.
  for (let i = 0; i < docs.length; i += WRITE_BATCH) {
    const ops: AnyBulkWriteOperation<DuplicateOverviewChunkDoc>[] = docs.slice(i, i + WRITE_BATCH)
      .map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } }));
    await c.duplicateOverviewChunks.bulkWrite(ops, { ordered: false });
  }
  const result = { state: 'ready' as const, ready_at: new Date().toISOString(), group_count: groups.length, chunk_count: index.length, chunks_json: JSON.stringify(index) };
  const ready: DuplicateOverviewDoc = { ...claim, ...result };
  // Guarded by claimed_at: a claim replaced as abandoned belongs to its new reader, whose result is the same.
  const marked = await c.duplicateOverviews.updateOne({ _id: claim._id, claimed_at: claim.claimed_at }, { $set: result });
  if (marked.matchedCount === 0 && !(await c.duplicateOverviews.findOne({ _id: claim._id }, { projection: { _id: 1 } }))) {
    // A newer version became ready first and removed this claim: these chunks belong to nobody.
    await c.duplicateOverviewChunks.deleteMany({ org_id: claim.org_id, overview_id: claim._id });
    return ready; // the page read finds its chunks gone and reads the newer version
  }
  await removeOlderOverviews(db, ready);
  return ready;
}

/**
 * Remove the org's overviews claimed before this one, chunks first. They can
 * only be older versions (this one is current and just became ready); a
 * reader still paging one of them finds a chunk gone and reads again.
 * A claim made after this one (a newer version being computed) is kept.
 */
async function removeOlderOverviews(db: Db, current: DuplicateOverviewDoc): Promise<void> {
  const c = collections(db);
  const all = await c.duplicateOverviews.find({ org_id: current.org_id }, { projection: { _id: 1, claimed_at: 1 } }).toArray();
  for (const old of all) {
    if (old._id === current._id || old.claimed_at > current.claimed_at) continue;
    await c.duplicateOverviewChunks.deleteMany({ org_id: current.org_id, overview_id: old._id });
    await c.duplicateOverviews.deleteOne({ _id: old._id, claimed_at: old.claimed_at });
  }
}

/** By `_id` alone (it starts with the org's id): one GIN lookup on FerretDB, no org-wide bitmap to intersect with. */
async function loadChunk(db: Db, overviewId: string, n: number): Promise<GroupPiece[] | null> {
  const doc = await collections(db).duplicateOverviewChunks.findOne({ _id: `${overviewId}:${n}` }, { projection: { pieces_json: 1 } });
  return doc ? JSON.parse(doc.pieces_json) as GroupPiece[] : null;
}
