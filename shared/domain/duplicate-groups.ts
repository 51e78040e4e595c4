// The inbox duplicate overview (DESIGN §5.4, shape §5.5): which open or
// booked inbox documents are duplicates of each other, grouped, with the
// canonical document of each group and the reasons that tie each document to
// the others. Pure: the worker loads the documents, this decides.
//
// Never compares all pairs. Documents meet through keys: a bucket per file
// hash, per (vendor key, invoice number) and per (vendor key, currency,
// total); the last kind is sorted by invoice date and split into runs of
// neighbours at most 3 days apart. Groups are the union-find components of
// those buckets and runs. O(n log n) overall.
import { createHash } from 'node:crypto';
import { isCalendarDate } from '../dates.js';
import type { InboxDocument, InboxDocumentStatus } from './books.js';
import { compareIds } from './books.js';
import { normaliseInvoiceNumber } from './invoice-number.js';
import { vendorKey } from './vendor-key.js';

export type DuplicateRule = 'same_file' | 'same_invoice_number' | 'same_amount_date_vendor';

/** The pair rules, strongest first. */
export const DUPLICATE_RULES: readonly DuplicateRule[] = Object.freeze([
  'same_file',
  'same_invoice_number',
  'same_amount_date_vendor',
] as const);

export const RULE_CONFIDENCE: Readonly<Record<DuplicateRule, number>> = Object.freeze({
  same_file: 1,
  same_invoice_number: 0.95,
  same_amount_date_vendor: 0.8,
});

/** `same_amount_date_vendor` pairs invoice dates at most this many calendar days apart. */
export const INVOICE_DATE_WINDOW_DAYS = 3;

export type GroupedDocumentStatus = Exclude<InboxDocumentStatus, 'archived'>;

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
  /** One per rule tying this document to another member, strongest rule first. */
  reasons: DuplicateReason[];
}

export interface DuplicateGroup {
  group_id: string;
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
export function findDuplicateGroups(documents: readonly InboxDocument[]): DuplicateGroup[] {
  const candidates: Candidate[] = [];
  for (const doc of documents) {
    if (doc.status === 'open' || doc.status === 'booked') candidates.push(toCandidate(doc, doc.status));
  }
  const n = candidates.length;
  const sets = new DisjointSets(n);

  // Exact-key rules: every member of a bucket pairs with every other.
  const fileBuckets = bucketBy(candidates, (c) => c.sha256);
  const invoiceBuckets = bucketBy(candidates, (c) =>
    c.vendor === null || c.invoice === null ? null : JSON.stringify([c.vendor, c.invoice]),
  );
  for (const bucket of [...fileBuckets, ...invoiceBuckets]) {
    const first = bucket[0] as number;
    for (let i = 1; i < bucket.length; i++) sets.union(first, bucket[i] as number);
  }

  // Date-window rule: sorted by day, neighbours at most 3 days apart form a
  // run. Two documents of a bucket pair exactly when they are within 3 days,
  // and then every step between them (in sorted order) is within 3 days too,
  // so each pair lies inside one run and linking neighbours connects it.
  const dateRuns: number[][] = [];
  const amountBuckets = bucketBy(candidates, (c) =>
    c.vendor === null || c.currency === null || c.total === null || c.day === null
      ? null
      : JSON.stringify([c.vendor, c.currency, c.total]),
  );
  for (const bucket of amountBuckets) {
    bucket.sort((a, b) => dayOf(candidates, a) - dayOf(candidates, b) || a - b);
    let run: number[] = [bucket[0] as number];
    for (let i = 1; i < bucket.length; i++) {
      const prev = bucket[i - 1] as number;
      const cur = bucket[i] as number;
      if (dayOf(candidates, cur) - dayOf(candidates, prev) <= INVOICE_DATE_WINDOW_DAYS) {
        sets.union(prev, cur);
        run.push(cur);
      } else {
        if (run.length > 1) dateRuns.push(run);
        run = [cur];
      }
    }
    if (run.length > 1) dateRuns.push(run);
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
  firstPartnersInBuckets(fileBuckets, groupOf, rank, partner.same_file);
  firstPartnersInBuckets(invoiceBuckets, groupOf, rank, partner.same_invoice_number);
  for (const run of dateRuns) {
    if ((groupOf[run[0] as number] as number) >= 0) firstPartnersInRun(candidates, run, rank, partner.same_amount_date_vendor);
  }

  const result = groups.map((ordered) => toGroup(candidates, ordered, partner));
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
    if (page.length === limit) return { groups: page, next_after: groupPosition(page[page.length - 1] as DuplicateGroup) };
    page.push(group);
  }
  return { groups: page, next_after: null };
}

// ---------------------------------------------------------------------------
// Internals.

interface Candidate {
  doc: InboxDocument;
  status: GroupedDocumentStatus;
  receivedMs: number;
  sha256: string | null;
  vendor: string | null;
  invoice: string | null;
  currency: string | null;
  total: number | null;
  /** Invoice date as days since 1970-01-01. */
  day: number | null;
}

function toCandidate(doc: InboxDocument, status: GroupedDocumentStatus): Candidate {
  const extracted = doc.extracted ?? {};
  const sha = doc.file?.sha256;
  const currency = extracted.currency;
  const total = extracted.total_minor;
  return {
    doc,
    status,
    receivedMs: instant(doc.received_at),
    sha256: typeof sha === 'string' && sha.trim() !== '' ? sha.trim().toLowerCase() : null,
    vendor: vendorKey(extracted),
    invoice: normaliseInvoiceNumber(extracted.invoice_number),
    currency: typeof currency === 'string' && currency.trim() !== '' ? currency.trim().toUpperCase() : null,
    total: typeof total === 'number' && Number.isFinite(total) ? total + 0 : null,
    day: calendarDay(extracted.invoice_date),
  };
}

function calendarDay(date: string | null | undefined): number | null {
  if (typeof date !== 'string' || !isCalendarDate(date)) return null;
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000;
}

const INSTANT_RE = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Epoch milliseconds of an ISO 8601 timestamp (with `Z` or an offset; a bare
 * date is UTC midnight), so `…00Z` and `…00.000Z` are the same instant.
 * Anything else sorts as the latest possible time (then by id), the same on
 * every machine.
 */
function instant(value: string): number {
  const m = typeof value === 'string' ? INSTANT_RE.exec(value) : null;
  if (!m || !isCalendarDate(m[1] as string)) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

function dayOf(candidates: readonly Candidate[], i: number): number {
  return (candidates[i] as Candidate).day as number;
}

/** Indices grouped by key; null keys (a missing field) join no bucket. Only buckets of two or more. */
function bucketBy(candidates: readonly Candidate[], key: (c: Candidate) => string | null): number[][] {
  const buckets = new Map<string, number[]>();
  candidates.forEach((c, i) => {
    const k = key(c);
    if (k === null) return;
    const bucket = buckets.get(k);
    if (bucket) bucket.push(i);
    else buckets.set(k, [i]);
  });
  return [...buckets.values()].filter((bucket) => bucket.length > 1);
}

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
  const canonical = byReceived.find((i) => candidates[i]?.status === 'booked') ?? (byReceived[0] as number);
  return [canonical, ...byReceived.filter((i) => i !== canonical)];
}

/**
 * In an exact-key bucket everyone pairs with everyone, so a member's first
 * partner in group order is the bucket's first member, or its second for the
 * first member itself. O(k).
 */
function firstPartnersInBuckets(buckets: number[][], groupOf: Int32Array, rank: Int32Array, out: Int32Array): void {
  for (const bucket of buckets) {
    if ((groupOf[bucket[0] as number] as number) < 0) continue;
    let best = -1;
    let second = -1;
    for (const i of bucket) {
      if (best < 0 || (rank[i] as number) < (rank[best] as number)) {
        second = best;
        best = i;
      } else if (second < 0 || (rank[i] as number) < (rank[second] as number)) {
        second = i;
      }
    }
    for (const i of bucket) out[i] = i === best ? second : best;
  }
}

/**
 * In a date run (sorted by day) a member pairs with the members within 3 days
 * of it: a contiguous window of the run, found with two pointers. Its first
 * partner is the lowest group rank in the window except itself: two range-
 * minimum queries on a sparse table. O(k log k) for a run of k.
 */
function firstPartnersInRun(candidates: readonly Candidate[], run: number[], rank: Int32Array, out: Int32Array): void {
  const ranks = Int32Array.from(run, (i) => rank[i] as number);
  const table = new RangeMinimum(ranks);
  let lo = 0;
  let hi = 0;
  for (let p = 0; p < run.length; p++) {
    const day = dayOf(candidates, run[p] as number);
    while (dayOf(candidates, run[lo] as number) < day - INVOICE_DATE_WINDOW_DAYS) lo++;
    while (hi + 1 < run.length && dayOf(candidates, run[hi + 1] as number) <= day + INVOICE_DATE_WINDOW_DAYS) hi++;
    const left = p > lo ? table.argMin(lo, p - 1) : -1;
    const right = p < hi ? table.argMin(p + 1, hi) : -1;
    const best = left < 0 ? right : right < 0 ? left : (ranks[left] as number) < (ranks[right] as number) ? left : right;
    if (best >= 0) out[run[p] as number] = run[best] as number;
  }
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
      if (with_ >= 0) reasons.push({ rule, with_document_id: (candidates[with_] as Candidate).doc.id, confidence: RULE_CONFIDENCE[rule] });
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

/** Sparse table: position of the smallest value in any range, O(1) per query after O(k log k) setup. */
class RangeMinimum {
  private readonly levels: Int32Array[];

  constructor(private readonly values: Int32Array) {
    const first = Int32Array.from({ length: values.length }, (_, i) => i);
    this.levels = [first];
    for (let width = 2; width <= values.length; width *= 2) {
      const prev = this.levels[this.levels.length - 1] as Int32Array;
      const half = width / 2;
      const level = new Int32Array(values.length - width + 1);
      for (let i = 0; i < level.length; i++) level[i] = this.smaller(prev[i] as number, prev[i + half] as number);
      this.levels.push(level);
    }
  }

  /** Position of the minimum in [lo, hi] (inclusive, lo ≤ hi). */
  argMin(lo: number, hi: number): number {
    const k = 31 - Math.clz32(hi - lo + 1);
    const level = this.levels[k] as Int32Array;
    return this.smaller(level[lo] as number, level[hi - (1 << k) + 1] as number);
  }

  private smaller(a: number, b: number): number {
    return (this.values[a] as number) <= (this.values[b] as number) ? a : b;
  }
}
