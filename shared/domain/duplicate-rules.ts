// The three pair rules of the inbox duplicate overview
// (docs/design/duplicate-overview.md), strongest first: the same file, the same
// invoice number from the same vendor, the same amount from the same vendor
// with invoice dates at most INVOICE_DATE_WINDOW_DAYS apart.
//
// Never compares all pairs. Documents meet through keys: a bucket per file
// hash, per (vendor key, invoice number) and per (vendor key, currency,
// total); the last kind is sorted by invoice date and split into runs of
// neighbours at most 3 days apart. O(n log n) overall. The grouping of the
// pairs is shared/domain/duplicate-groups.ts.
import type { Candidate } from './duplicate-candidates.js';

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

/** `same_file`: candidate indices by file hash; every member of a bucket pairs with every other. */
export function sameFileBuckets(candidates: readonly Candidate[]): number[][] {
  return bucketBy(candidates, (c) => c.sha256);
}

/** `same_invoice_number`: candidate indices by (vendor key, invoice number); every member of a bucket pairs with every other. */
export function sameInvoiceNumberBuckets(candidates: readonly Candidate[]): number[][] {
  return bucketBy(candidates, (c) =>
    c.vendor === null || c.invoice === null ? null : JSON.stringify([c.vendor, c.invoice]),
  );
}

/**
 * `same_amount_date_vendor`: candidate indices by (vendor key, currency,
 * total), each bucket sorted by invoice day and split into runs of neighbours
 * at most INVOICE_DATE_WINDOW_DAYS apart; only runs of two or more. Two
 * documents of a bucket pair exactly when they are within the window, and
 * then every step between them (in sorted order) is within it too, so each
 * pair lies inside one run and linking neighbours connects it.
 */
export function sameAmountDateVendorRuns(candidates: readonly Candidate[]): number[][] {
  const runs: number[][] = [];
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
        run.push(cur);
      } else {
        if (run.length > 1) runs.push(run);
        run = [cur];
      }
    }
    if (run.length > 1) runs.push(run);
  }
  return runs;
}

/**
 * In an exact-key bucket everyone pairs with everyone, so a member's first
 * partner in group order (`rank`) is the bucket's first member, or its second
 * for the first member itself. Buckets outside a reported group
 * (`groupOf` < 0) are skipped. O(k).
 */
export function firstPartnersInBuckets(
  buckets: number[][],
  groupOf: Int32Array,
  rank: Int32Array,
  out: Int32Array,
): void {
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
export function firstPartnersInRun(
  candidates: readonly Candidate[],
  run: number[],
  rank: Int32Array,
  out: Int32Array,
): void {
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
    const best =
      left < 0 ? right : right < 0 ? left : (ranks[left] as number) < (ranks[right] as number) ? left : right;
    if (best >= 0) out[run[p] as number] = run[best] as number;
  }
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
