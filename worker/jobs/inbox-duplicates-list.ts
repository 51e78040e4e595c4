// A page of the inbox duplicate overview (docs/reference/http-api.md §10). Read only
// from the inbox's point of view: the page comes from the overview
// materialized for the current inbox version, which the first reader of a new
// version computes once for everyone (docs/design/duplicate-overview.md).
//
// One recompute per version, shared by concurrent readers: the first reader
// to find no overview for (org, version) inserts `{_id: ORG:VERSION, state:
// 'computing'}`; MongoDB's unique `_id` lets exactly one insert win (FerretDB's
// updateOne is no atomic compare-and-set, so a lease is an insert). The others
// wait until it is `ready`. A lease older than LEASE_ABANDONED_MS is taken
// to be dead (its worker crashed) and is replaced. The reads and writes are
// shared/storage/duplicate-overview.ts; grouping and chunking are the
// domain's.
import type { Db } from 'mongodb';
import type { InboxDocument } from '../../shared/domain/books.js';
import { findDuplicateGroups, type GroupPage, type GroupPageOptions } from '../../shared/domain/duplicate-groups.js';
import {
  chunkGroups,
  pageFromChunks,
  withDocumentDetails,
  type ChunkSummary,
} from '../../shared/domain/duplicate-overview.js';
import type { InboxDuplicatesListInput } from '../../shared/queue/read-jobs.js';
import type { DuplicateOverviewChunkDoc, DuplicateOverviewDoc } from '../../shared/storage/collections.js';
import {
  cachedChunk,
  deleteOverviewChunks,
  deleteOverviewLease,
  findCurrentOverview,
  insertOverviewLease,
  markOverviewReady,
  overviewChunkId,
  removeOlderOverviews,
  StoredOverviewCache,
  writeOverviewChunks,
  type OverviewPage,
} from '../../shared/storage/duplicate-overview.js';
import { findGroupableInboxDocuments } from '../../shared/storage/inbox-read.js';
import { findDismissals } from '../../shared/storage/duplicate-dismissals.js';

/** A computing lease older than this is abandoned (grouping 100,000 documents takes well under a minute). */
export const LEASE_ABANDONED_MS = 5 * 60_000;
/** How often a reader waiting for another process's computation looks again. */
const WAIT_POLL_MS = 20;

/**
 * The computations running in this process, by overview id. A reader here
 * that lost the lease to one of them awaits it, then reads the store once,
 * instead of reading it every WAIT_POLL_MS: the mixed load's 25 readers of a
 * fresh organisation's first page polled the store 1,250 times a second while
 * the one computation they waited for competed with those reads
 * (docs/design/duplicate-overview.md "Computing once, shared by concurrent
 * readers"). A reader in another process still polls; the store's lease
 * decides who computes either way.
 */
const computing = new Map<string, Promise<unknown>>();

/** Resolves when `work` settles (either way) or at `deadline`, whichever is first. */
async function settledBefore(work: Promise<unknown>, deadline: Date | undefined): Promise<void> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  if (!deadline) return settled;
  let timer: NodeJS.Timeout | undefined;
  const due = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline.getTime() - Date.now()));
  });
  try {
    await Promise.race([settled, due]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Chunks this process wrote or read, kept as parsed pieces (characters of
 * their JSON, a few 2,000-document overviews). why: the readers that waited
 * for a fresh organisation's computation each read the page's chunks back
 * through FerretDB and parsed them, the moment the machine was busiest (the
 * mixed load's tail, docs/design/duplicate-overview.md "Computing once,
 * shared by concurrent readers"); the computing reader now keeps what it
 * wrote, and they page from memory.
 */
const chunkCache = new StoredOverviewCache(4_000_000);

/** A page whose chunks were cleaned up under it (a newer version became ready) is read again from the top, this often at most. */
const PAGE_ATTEMPTS = 3;

export class OverviewWaitTimeout extends Error {
  constructor(overviewId: string) {
    super(`the duplicate overview ${overviewId} was still being computed when the read's deadline passed`);
  }
}

export async function listInboxDuplicates(
  db: Db,
  orgId: string,
  input: InboxDuplicatesListInput,
  deadline?: Date,
): Promise<GroupPage> {
  const page = await readDuplicatePage(
    db,
    orgId,
    { limit: input.limit, min_confidence: input.min_confidence, after: input.after },
    deadline,
  );
  return { groups: page.groups, next_after: page.next_after };
}

/**
 * A page of the organisation's duplicate groups: exactly what pageGroups over
 * findDuplicateGroups of the current inbox answers, read from the overview of
 * the current inbox version (computed first if nobody has). `deadline`: stop
 * waiting for another reader's computation then (OverviewWaitTimeout).
 */
export async function readDuplicatePage(
  db: Db,
  orgId: string,
  options: GroupPageOptions,
  deadline?: Date,
): Promise<OverviewPage> {
  for (let attempt = 1; ; attempt++) {
    const { overview, computed } = await readyOverview(db, orgId, deadline);
    const index = JSON.parse(overview.chunks_json ?? '[]') as ChunkSummary[];
    const page = await pageFromChunks(index, options, (n) => cachedChunk(db, overview._id, n, chunkCache));
    if (page) return { ...page, version: overview.version, computed };
    // A chunk was gone: a newer version became ready and cleaned this one up meanwhile.
    if (attempt >= PAGE_ATTEMPTS)
      throw new Error(`duplicate overview ${overview._id} lost its chunks ${PAGE_ATTEMPTS} times while being read`);
  }
}

/** The ready overview of the current inbox version: stored, computed here, or awaited from the reader computing it. */
export async function readyOverview(
  db: Db,
  orgId: string,
  deadline?: Date,
): Promise<{ overview: DuplicateOverviewDoc; computed: boolean }> {
  for (;;) {
    // Read again on every turn: an import finishing meanwhile makes the awaited version obsolete.
    const { id, version, existing } = await findCurrentOverview(db, orgId);
    if (existing?.state === 'ready') return { overview: existing, computed: false };
    if (!existing) {
      const lease: DuplicateOverviewDoc = {
        _id: id,
        org_id: orgId,
        version,
        state: 'computing',
        claimed_at: new Date().toISOString(),
      };
      // Another reader took the lease first: wait for theirs.
      if (!(await insertOverviewLease(db, lease))) continue;
      const running = computeOverview(db, lease);
      computing.set(id, running);
      try {
        return { overview: await running, computed: true };
      } finally {
        computing.delete(id);
      }
    }
    if (Date.now() - Date.parse(existing.claimed_at) > LEASE_ABANDONED_MS) {
      // Its reader died: remove that lease (only that one) and take the lease again.
      await deleteOverviewLease(db, id, existing.claimed_at);
      continue;
    }
    if (deadline && Date.now() >= deadline.getTime()) throw new OverviewWaitTimeout(id);
    const local = computing.get(id);
    // Computed here: read again once it is done (ready, failed, or overtaken by a newer version).
    if (local) await settledBefore(local, deadline);
    else await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** Group the inbox as it is now, write the chunks, then mark the overview ready; older overviews of the org are removed. */
async function computeOverview(db: Db, lease: DuplicateOverviewDoc): Promise<DuplicateOverviewDoc> {
  const [documents, dismissals] = await Promise.all([
    findGroupableInboxDocuments(db, lease.org_id),
    findDismissals(db, lease.org_id),
  ]);
  // Grouping reads only the projected fields (id, received_at, status, file.sha256, extracted); dismissed pairs never pair; the members then carry the documents' details.
  const groups = withDocumentDetails(findDuplicateGroups(documents as InboxDocument[], dismissals), documents);
  const { chunks, index } = chunkGroups(groups);
  const docs: DuplicateOverviewChunkDoc[] = chunks.map((pieces, n) => ({
    _id: overviewChunkId(lease._id, n),
    org_id: lease.org_id,
    overview_id: lease._id,
    n,
    pieces_json: JSON.stringify(pieces),
  }));
  await writeOverviewChunks(db, docs);
  // Kept as a reader would parse them back: the JSON's own copy, shared by every page read here.
  for (const doc of docs) chunkCache.set(doc._id, JSON.parse(doc.pieces_json) as unknown, doc.pieces_json.length);
  const result = {
    state: 'ready' as const,
    ready_at: new Date().toISOString(),
    group_count: groups.length,
    chunk_count: index.length,
    chunks_json: JSON.stringify(index),
  };
  const ready: DuplicateOverviewDoc = { ...lease, ...result };
  if ((await markOverviewReady(db, lease, result)) === 'gone') {
    // A newer version became ready first and removed this lease: these chunks belong to nobody.
    await deleteOverviewChunks(db, lease.org_id, lease._id);
    return ready; // the page read finds its chunks gone and reads the newer version
  }
  await removeOlderOverviews(db, ready);
  return ready;
}
