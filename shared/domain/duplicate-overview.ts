// The materialized duplicate overview (docs/design/duplicate-overview.md): the
// listing of findDuplicateGroups cut into stored chunks, and a page read back
// from those chunks that is exactly the page pageGroups cuts from the whole
// list. Pure: storage (shared/storage/duplicate-overview.ts) writes and loads
// the chunks, this decides what goes where and which chunks a page needs.
import type { InboxDocument } from './books.js';
import {
  compareGroupPositions,
  groupPosition,
  pageGroups,
  type DuplicateGroup,
  type GroupPage,
  type GroupPageOptions,
  type GroupPosition,
} from './duplicate-groups.js';

/**
 * Each member with its document's file (name, mime, size) and extracted
 * fields beside the grouping's own (docs/design/duplicate-overview.md
 * "Members"), so a reviewer can judge the group; ids, order and reasons are
 * untouched. A document not passed keeps its member as it is.
 */
export function withDocumentDetails(
  groups: readonly DuplicateGroup[],
  documents: ReadonlyArray<Pick<InboxDocument, 'id' | 'extracted'> & { file: Partial<InboxDocument['file']> }>,
): DuplicateGroup[] {
  const byId = new Map(documents.map((d) => [d.id, d]));
  return groups.map((group) => ({
    ...group,
    documents: group.documents.map((member) => {
      const doc = byId.get(member.document_id);
      if (!doc) return member;
      const { reasons, ...head } = member;
      return {
        ...head,
        file: { name: doc.file.name ?? '', mime: doc.file.mime ?? '', size: doc.file.size ?? 0 },
        extracted: { ...doc.extracted },
        reasons,
      };
    }),
  }));
}

/**
 * One stored slice of a group: the group with a run of its documents. A group
 * too big for one chunk is split into consecutive pieces (part 0, 1, …);
 * `more` says another piece follows in the next chunk. Most groups are one
 * piece (part 0, more false).
 */
export interface GroupPiece {
  group: DuplicateGroup;
  part: number;
  more: boolean;
}

/** What the overview record keeps per chunk, so that a page reads only the chunks it needs. */
export interface ChunkSummary {
  /** Chunk number, from 0, in listing order. */
  n: number;
  /** Position of the chunk's last (or last started) group. */
  last: GroupPosition;
  /** The highest group confidence in the chunk: a chunk below min_confidence is never read. */
  max_confidence: number;
}

export interface ChunkLimits {
  /** At most this many pieces per chunk. */
  maxGroups: number;
  /** About this many bytes of JSON per chunk (MongoDB's document limit is 16 MB; a page reads whole chunks). */
  maxBytes: number;
}

/** Small chunks: a page reads one or two, and FerretDB converts each whole document on every read. */
export const CHUNK_LIMITS: ChunkLimits = { maxGroups: 50, maxBytes: 128 * 1024 };

export interface ChunkedGroups {
  chunks: GroupPiece[][];
  index: ChunkSummary[];
}

/** Cut `groups` (in listing order) into chunks; a group larger than `maxBytes` is split into pieces across chunks. */
export function chunkGroups(groups: readonly DuplicateGroup[], limits: ChunkLimits = CHUNK_LIMITS): ChunkedGroups {
  const chunks: GroupPiece[][] = [];
  const index: ChunkSummary[] = [];
  let current: GroupPiece[] = [];
  let bytes = 0;
  let max = 0;
  const close = (): void => {
    if (current.length === 0) return;
    const lastPiece = current[current.length - 1] as GroupPiece;
    index.push({ n: chunks.length, last: groupPosition(lastPiece.group), max_confidence: max });
    chunks.push(current);
    current = [];
    bytes = 0;
    max = 0;
  };
  const add = (piece: GroupPiece, size: number): void => {
    if (current.length >= limits.maxGroups || (current.length > 0 && bytes + size > limits.maxBytes)) close();
    current.push(piece);
    bytes += size;
    max = Math.max(max, piece.group.confidence);
  };
  for (const group of groups) {
    const size = JSON.stringify(group).length;
    if (size <= limits.maxBytes) {
      add({ group, part: 0, more: false }, size);
      continue;
    }
    // A huge group: runs of documents of about maxBytes each, one piece per chunk.
    const perDocument = Math.max(1, Math.ceil(size / Math.max(1, group.documents.length)));
    const perPiece = Math.max(1, Math.floor(limits.maxBytes / perDocument));
    for (let start = 0, part = 0; start < group.documents.length; start += perPiece, part += 1) {
      const documents = group.documents.slice(start, start + perPiece);
      close();
      add({ group: { ...group, documents }, part, more: start + perPiece < group.documents.length }, limits.maxBytes);
    }
  }
  close();
  return { chunks, index };
}

/** The chunk to start reading at: the first whose last group comes strictly after `after` (chunks before hold only earlier groups). */
export function firstChunkAfter(index: readonly ChunkSummary[], after: GroupPosition | null | undefined): number {
  if (!after) return 0;
  let start = 0;
  let end = index.length;
  while (start < end) {
    const mid = (start + end) >>> 1;
    if (compareGroupPositions((index[mid] as ChunkSummary).last, after) <= 0) start = mid + 1;
    else end = mid;
  }
  return start;
}

/**
 * The page of `options` from a chunked listing: exactly pageGroups over the
 * whole list. Reads chunks in order from firstChunkAfter, skips those whose
 * groups are all below min_confidence, and stops once the page and one more
 * matching group (which decides next_after) are known. `load` answers a
 * chunk's pieces, or null when the chunk is gone (then the answer is null).
 */
export async function pageFromChunks(
  index: readonly ChunkSummary[],
  options: GroupPageOptions,
  load: (n: number) => Promise<GroupPiece[] | null>,
): Promise<GroupPage | null> {
  const minConfidence = options.min_confidence ?? null;
  const passes = (confidence: number): boolean => minConfidence == null || confidence >= minConfidence;
  const wanted = options.limit + 1;
  const collected: DuplicateGroup[] = [];
  let matched = 0;
  // The group whose pieces are being joined; null between groups.
  let open = null as DuplicateGroup | null;
  const fetched = new Map<number, Promise<GroupPiece[] | null>>();
  const fetch = (i: number): Promise<GroupPiece[] | null> => {
    let pending = fetched.get(i);
    if (!pending) {
      pending = load((index[i] as ChunkSummary).n);
      fetched.set(i, pending);
    }
    return pending;
  };
  for (let i = firstChunkAfter(index, options.after); i < index.length; i++) {
    const summary = index[i] as ChunkSummary;
    // A skipped chunk holds no matching group, nor a piece of one (a group's pieces share its confidence).
    if (!passes(summary.max_confidence) && open === null) continue;
    // The next chunk to read is fetched while this one is read: a page of 50 usually spans two.
    const pieces = await fetch(i);
    let ahead = i + 1;
    while (ahead < index.length && !passes((index[ahead] as ChunkSummary).max_confidence)) ahead++;
    if (ahead < index.length) void fetch(ahead).catch(() => undefined);
    if (!pieces) return null;
    for (const piece of pieces) {
      if (piece.part > 0) {
        // The rest of a group started in an earlier chunk; one not started here lies at or before `after`.
        if (open) open = { ...open, documents: [...open.documents, ...piece.group.documents] };
      } else {
        open = piece.group;
      }
      if (piece.more || !open) continue;
      const group: DuplicateGroup = open;
      open = null;
      collected.push(group);
      if (
        passes(group.confidence) &&
        (!options.after || compareGroupPositions(groupPosition(group), options.after) > 0)
      )
        matched += 1;
    }
    if (matched >= wanted && open === null) break;
  }
  return pageGroups(collected, options);
}
