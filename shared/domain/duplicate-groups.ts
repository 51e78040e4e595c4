// The inbox duplicate overview (docs/reference/http-api.md "Inbox duplicate overview",
// docs/design/duplicate-overview.md): which open or booked inbox documents are
// duplicates of each other, grouped, with the canonical document of each group
// and the reasons that tie each document to the others. Pure: the worker loads
// the documents, this decides. The pairs come from the three rules of
// shared/domain/duplicate-rules.ts; groups are the union-find components of
// their buckets and runs.
import { createHash } from 'node:crypto';
import type { InboxDocument } from './books.js';
import { compareIds } from './books.js';
import { instant, toCandidate, type Candidate, type GroupedDocumentStatus } from './duplicate-candidates.js';
import {
  DUPLICATE_RULES,
  INVOICE_DATE_WINDOW_DAYS,
  RULE_CONFIDENCE,
  firstPartnersInBuckets,
  firstPartnersInRun,
  sameAmountDateVendorRuns,
  sameFileBuckets,
  sameInvoiceNumberBuckets,
  type DuplicateRule,
} from './duplicate-rules.js';

export interface DuplicateReason {
  rule: DuplicateRule;
  with_document_id: string;
  confidence: number;
}

export interface DuplicateGroupDocument {
  document_id: string;
  role: 'canonical' | 'duplicate';
  status: GroupedDocumentStatus;
  received_at: string;
  /** The document's file and extracted fields, added to the overview's members after grouping (duplicate-overview.ts withDocumentDetails). */
  file?: { name: string; mime: string; size: number };
  extracted?: InboxDocument['extracted'];
  /** One per rule tying this document to another member, strongest rule first. */
  reasons: DuplicateReason[];
}

export interface DuplicateGroup {
  group_id: string;
  /**
   * Present only when members of the group were once resolved as not
   * duplicates of each other (docs/design/duplicate-overview.md "Dismissals"):
   * each such set, as the ids of its members in this group, sorted.
   */
  dismissed_with?: string[][];
  /** The lowest confidence of its documents (a document's is its strongest reason's). */
  confidence: number;
  canonical_document_id: string;
  /** Canonical first, then by received_at, id. */
  documents: DuplicateGroupDocument[];
}

/**
 * The duplicate groups of a set of inbox documents (one organisation), in
 * listing order: newest member `received_at` first, then group id. Archived
 * documents are ignored; a group is reported when it has at least two members
 * and at least one is open. Input order never matters.
 */
export function findDuplicateGroups(
  documents: readonly InboxDocument[],
  dismissals: readonly (readonly string[])[] = [],
): DuplicateGroup[] {
  const candidates: Candidate[] = [];
  for (const doc of documents) {
    if (doc.status === 'open' || doc.status === 'booked') candidates.push(toCandidate(doc, doc.status));
  }
  const n = candidates.length;
  const sets = new DisjointSets(n);
  const dismissed = new DismissedPairs(candidates, dismissals);

  // Exact-key rules: every member of a bucket pairs with every other (but dismissed pairs).
  const fileBuckets = sameFileBuckets(candidates);
  const invoiceBuckets = sameInvoiceNumberBuckets(candidates);
  for (const bucket of [...fileBuckets, ...invoiceBuckets]) {
    if (dismissed.touches(bucket)) {
      dismissed.unionBucket(bucket, sets);
      continue;
    }
    const first = bucket[0] as number;
    for (let i = 1; i < bucket.length; i++) sets.union(first, bucket[i] as number);
  }
  // Date-window rule: neighbours of a run pair, and link the whole run.
  const dateRuns = sameAmountDateVendorRuns(candidates);
  for (const run of dateRuns) {
    if (dismissed.touches(run)) {
      dismissed.unionRun(candidates, run, sets);
      continue;
    }
    for (let i = 1; i < run.length; i++) sets.union(run[i - 1] as number, run[i] as number);
  }

  // Components → reported groups, each member's position in group order.
  const components = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = sets.find(i);
    const members = components.get(root);
    if (members) members.push(i);
    else components.set(root, [i]);
  }
  const groups: number[][] = [];
  const groupOf = new Int32Array(n).fill(-1);
  const rank = new Int32Array(n);
  for (const members of components.values()) {
    if (members.length < 2 || !members.some((i) => candidates[i]?.status === 'open')) continue;
    const ordered = inGroupOrder(candidates, members);
    ordered.forEach((i, position) => {
      groupOf[i] = groups.length;
      rank[i] = position;
    });
    groups.push(ordered);
  }

  // Per document and rule, the first member in group order it pairs with.
  const partner: Record<DuplicateRule, Int32Array> = {
    same_file: new Int32Array(n).fill(-1),
    same_invoice_number: new Int32Array(n).fill(-1),
    same_amount_date_vendor: new Int32Array(n).fill(-1),
  };
  const plain = (lists: number[][]) => lists.filter((list) => !dismissed.touches(list));
  firstPartnersInBuckets(plain(fileBuckets), groupOf, rank, partner.same_file);
  firstPartnersInBuckets(plain(invoiceBuckets), groupOf, rank, partner.same_invoice_number);
  for (const run of plain(dateRuns)) {
    if ((groupOf[run[0] as number] as number) >= 0)
      firstPartnersInRun(candidates, run, rank, partner.same_amount_date_vendor);
  }
  for (const bucket of fileBuckets)
    if (dismissed.touches(bucket)) dismissed.partnersInBucket(bucket, groupOf, rank, partner.same_file);
  for (const bucket of invoiceBuckets)
    if (dismissed.touches(bucket)) dismissed.partnersInBucket(bucket, groupOf, rank, partner.same_invoice_number);
  for (const run of dateRuns)
    if (dismissed.touches(run))
      dismissed.partnersInRun(candidates, run, groupOf, rank, partner.same_amount_date_vendor);

  const result = groups.map((ordered) => dismissed.shownOn(toGroup(candidates, ordered, partner), ordered));
  const newest = new Map(result.map((group) => [group, instant(newestReceivedAt(group))]));
  result.sort((a, b) => (newest.get(b) as number) - (newest.get(a) as number) || compareIds(a.group_id, b.group_id));
  return result;
}

/** `grp_` + the first 16 hex digits of SHA-256 of the member ids, sorted by code unit, joined with `\n`. */
export function duplicateGroupId(memberIds: readonly string[]): string {
  const joined = [...memberIds].sort(compareIds).join('\n');
  return `grp_${createHash('sha256').update(joined, 'utf8').digest('hex').slice(0, 16)}`;
}

// ---------------------------------------------------------------------------
// Paging. A page boundary is the sort key of the last group listed, so a
// cursor stays meaningful when groups before it appear or disappear.

/** Where a group sits in listing order; what a cursor carries. */
export interface GroupPosition {
  /** The `received_at` of the group's newest member, as stored. */
  newest_received_at: string;
  group_id: string;
}

export interface GroupPageOptions {
  /** Groups per page, at least 1 (the API allows 1–200). */
  limit: number;
  /** Keep groups whose confidence is at least this (0–1); all when absent. */
  min_confidence?: number | null;
  /** Start after this position (from the previous page's `next_after`); the first page when absent. */
  after?: GroupPosition | null;
}

export interface GroupPage {
  groups: DuplicateGroup[];
  /** Position of the page's last group when more groups follow, else null. */
  next_after: GroupPosition | null;
}

export function groupPosition(group: DuplicateGroup): GroupPosition {
  return { newest_received_at: newestReceivedAt(group), group_id: group.group_id };
}

/** Listing order of two positions: newest first, then group id. */
export function compareGroupPositions(a: GroupPosition, b: GroupPosition): number {
  return instant(b.newest_received_at) - instant(a.newest_received_at) || compareIds(a.group_id, b.group_id);
}

/**
 * One page of `groups`, which must be in listing order (as findDuplicateGroups
 * returns them): those with confidence ≥ min_confidence that come strictly
 * after `after`, at most `limit` of them. The position need not be one of the
 * groups (it may have changed or gone since the previous page).
 */
export function pageGroups(groups: readonly DuplicateGroup[], options: GroupPageOptions): GroupPage {
  const { limit, min_confidence: minConfidence, after } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  // Binary search for the first group strictly after the position (the list is in listing order).
  let start = 0;
  if (after) {
    let end = groups.length;
    while (start < end) {
      const mid = (start + end) >>> 1;
      if (compareGroupPositions(groupPosition(groups[mid] as DuplicateGroup), after) <= 0) start = mid + 1;
      else end = mid;
    }
  }
  const page: DuplicateGroup[] = [];
  for (let i = start; i < groups.length; i++) {
    const group = groups[i] as DuplicateGroup;
    if (minConfidence != null && !(group.confidence >= minConfidence)) continue;
    if (page.length === limit)
      return { groups: page, next_after: groupPosition(page[page.length - 1] as DuplicateGroup) };
    page.push(group);
  }
  return { groups: page, next_after: null };
}

// ---------------------------------------------------------------------------
// Internals.

function compareReceived(candidates: readonly Candidate[], a: number, b: number): number {
  const ca = candidates[a] as Candidate;
  const cb = candidates[b] as Candidate;
  // Equal instants (including two unreadable ones) fall through to the id.
  if (ca.receivedMs !== cb.receivedMs) return ca.receivedMs < cb.receivedMs ? -1 : 1;
  return compareIds(ca.doc.id, cb.doc.id);
}

/** Canonical (earliest booked, else earliest received) first, then by received_at, id. */
function inGroupOrder(candidates: readonly Candidate[], members: number[]): number[] {
  const byReceived = [...members].sort((a, b) => compareReceived(candidates, a, b));
  const canonical = byReceived.find((i) => candidates[i]?.status === 'booked') ?? byReceived[0];
  // A component has two or more members, so there is always a canonical one.
  if (canonical === undefined) return [];
  return [canonical, ...byReceived.filter((i) => i !== canonical)];
}

function toGroup(
  candidates: readonly Candidate[],
  ordered: readonly number[],
  partner: Record<DuplicateRule, Int32Array>,
): DuplicateGroup {
  const documents = ordered.map((i, position): DuplicateGroupDocument => {
    const c = candidates[i] as Candidate;
    const reasons: DuplicateReason[] = [];
    for (const rule of DUPLICATE_RULES) {
      const with_ = partner[rule][i] as number;
      if (with_ >= 0)
        reasons.push({
          rule,
          with_document_id: (candidates[with_] as Candidate).doc.id,
          confidence: RULE_CONFIDENCE[rule],
        });
    }
    return {
      document_id: c.doc.id,
      role: position === 0 ? 'canonical' : 'duplicate',
      status: c.status,
      received_at: c.doc.received_at,
      reasons,
    };
  });
  // Every member of a component of two or more has at least one pair, hence a
  // reason. (A loop, not Math.min(...): a group may be too big to spread.)
  let confidence = 1;
  for (const d of documents) confidence = Math.min(confidence, d.reasons[0]?.confidence ?? 0);
  const canonical = documents[0] as DuplicateGroupDocument;
  return {
    group_id: duplicateGroupId(documents.map((d) => d.document_id)),
    confidence,
    canonical_document_id: canonical.document_id,
    documents,
  };
}

function newestReceivedAt(group: DuplicateGroup): string {
  let newest = group.documents[0]?.received_at ?? '';
  for (const d of group.documents) if (instant(d.received_at) > instant(newest)) newest = d.received_at;
  return newest;
}

/**
 * The edge rule of dismissals (docs/design/duplicate-overview.md "Dismissals"):
 * two documents that a `not_duplicates` resolution named together never pair,
 * whatever rule would tie them. Only the buckets and runs holding a dismissed
 * document are walked pair by pair; the rest keep the fast path above.
 */
class DismissedPairs {
  /** Per candidate index, the dismissals (by number) it belongs to. */
  private readonly of = new Map<number, number[]>();
  private readonly members: string[][];

  constructor(candidates: readonly Candidate[], dismissals: readonly (readonly string[])[]) {
    this.members = dismissals.map((ids) => [...new Set(ids)].sort(compareIds));
    if (this.members.length === 0) return;
    const index = new Map(candidates.map((c, i) => [c.doc.id, i]));
    this.members.forEach((ids, d) => {
      for (const id of ids) {
        const i = index.get(id);
        if (i === undefined) continue;
        const list = this.of.get(i);
        if (list) list.push(d);
        else this.of.set(i, [d]);
      }
    });
  }

  touches(list: readonly number[]): boolean {
    return this.of.size > 0 && list.some((i) => this.of.has(i));
  }

  /** True when one dismissal names both. */
  pair(a: number, b: number): boolean {
    const da = this.of.get(a);
    const db = this.of.get(b);
    return da !== undefined && db !== undefined && da.some((d) => db.includes(d));
  }

  /** A bucket: members no dismissal names pair with everyone; the others pair where no dismissal parts them. */
  unionBucket(bucket: readonly number[], sets: DisjointSets): void {
    const free = bucket.filter((i) => !this.of.has(i));
    const named = bucket.filter((i) => this.of.has(i));
    for (let k = 1; k < free.length; k++) sets.union(free[0] as number, free[k] as number);
    for (let k = 0; k < named.length; k++) {
      const i = named[k] as number;
      if (free.length > 0) sets.union(free[0] as number, i);
      for (let m = k + 1; m < named.length; m++)
        if (!this.pair(i, named[m] as number)) sets.union(i, named[m] as number);
    }
  }

  /** A date run (sorted by day): every pair within the window that no dismissal parts. */
  unionRun(candidates: readonly Candidate[], run: readonly number[], sets: DisjointSets): void {
    for (let p = 0; p < run.length; p++) {
      for (
        let q = p + 1;
        q < run.length && dayGap(candidates, run[p] as number, run[q] as number) <= INVOICE_DATE_WINDOW_DAYS;
        q++
      ) {
        if (!this.pair(run[p] as number, run[q] as number)) sets.union(run[p] as number, run[q] as number);
      }
    }
  }

  partnersInBucket(bucket: readonly number[], groupOf: Int32Array, rank: Int32Array, out: Int32Array): void {
    for (const i of bucket) {
      if ((groupOf[i] as number) < 0) continue;
      out[i] = this.lowestRank(i, bucket, rank);
    }
  }

  partnersInRun(
    candidates: readonly Candidate[],
    run: readonly number[],
    groupOf: Int32Array,
    rank: Int32Array,
    out: Int32Array,
  ): void {
    for (const i of run) {
      if ((groupOf[i] as number) < 0) continue;
      out[i] = this.lowestRank(
        i,
        run.filter((j) => dayGap(candidates, i, j) <= INVOICE_DATE_WINDOW_DAYS),
        rank,
      );
    }
  }

  /** The group's dismissals that name two or more of its members, shown on it. */
  shownOn(group: DuplicateGroup, ordered: readonly number[]): DuplicateGroup {
    if (this.of.size === 0) return group;
    const inGroup = new Set(group.documents.map((d) => d.document_id));
    const shown = new Map<string, string[]>();
    for (const i of ordered) {
      for (const d of this.of.get(i) ?? []) {
        const ids = (this.members[d] as string[]).filter((id) => inGroup.has(id));
        if (ids.length > 1) shown.set(ids.join('\n'), ids);
      }
    }
    if (shown.size === 0) return group;
    const dismissedWith = [...shown.values()].sort((a, b) => compareIds(a.join('\n'), b.join('\n')));
    return { ...group, dismissed_with: dismissedWith };
  }

  private lowestRank(i: number, among: readonly number[], rank: Int32Array): number {
    let best = -1;
    for (const j of among) {
      if (j === i || this.pair(i, j)) continue;
      if (best < 0 || (rank[j] as number) < (rank[best] as number)) best = j;
    }
    return best;
  }
}

function dayGap(candidates: readonly Candidate[], a: number, b: number): number {
  return Math.abs(((candidates[a] as Candidate).day as number) - ((candidates[b] as Candidate).day as number));
}

/** Union-find with path halving and union by size. */
class DisjointSets {
  private readonly parent: Int32Array;
  private readonly size: Int32Array;

  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
    this.size = new Int32Array(n).fill(1);
  }

  find(i: number): number {
    let x = i;
    while (this.parent[x] !== x) {
      const grandparent = this.parent[this.parent[x] as number] as number;
      this.parent[x] = grandparent;
      x = grandparent;
    }
    return x;
  }

  union(a: number, b: number): void {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if ((this.size[ra] as number) < (this.size[rb] as number)) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] = (this.size[ra] as number) + (this.size[rb] as number);
  }
}
