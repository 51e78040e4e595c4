// Ordering records by (date, id) when their positions are already in id
// order: the link repair plan's FIFO queues (shared/kinds/ledger-link-repair/plan.ts), where 100k
// transactions and as many entries are ordered by booking or entry date.
//
// why not compare the date strings: at 100k records, comparisons of two
// 10-character strings (`a > b`, the as-of cut and the order check) cost
// more than the rest of reading the record set. Books hold a few hundred distinct
// dates: each is compared once, given a rank, and records are ordered by one
// counting pass over the ranks.

/** The distinct dates met, each with a slot in first-met order, and whether it falls after a cut-off date. */
export class DateSlots {
  /** By slot: the date. */
  readonly dates: string[] = [];
  /** By slot: the date is after the cut-off. */
  private readonly later: boolean[] = [];
  private readonly slotOf = new Map<string, number>();
  private previous: string | undefined;
  private previousSlot = -1;

  /** `cutoff`: an ISO date; each distinct date is compared with it once (isAfterCutoff). */
  constructor(private readonly cutoff: string) {}

  /** The date's slot; a date met for the first time gets the next one (`dates.length` before the call). */
  slot(date: string): number {
    // why: neighbouring records mostly share a date, and an equality check
    // is cheaper than the map's lookup.
    if (date === this.previous) return this.previousSlot;
    let slot = this.slotOf.get(date);
    if (slot === undefined) {
      slot = this.dates.length;
      this.slotOf.set(date, slot);
      this.dates.push(date);
      this.later.push(date > this.cutoff);
    }
    this.previous = date;
    this.previousSlot = slot;
    return slot;
  }

  /** Whether the date of `slot` falls after the cut-off (code-unit order, as compareIds). */
  isAfterCutoff(slot: number): boolean {
    return this.later[slot]!;
  }

  /** By slot: the date's rank among the distinct dates, in code-unit order (as compareIds). */
  ranks(): Int32Array {
    const dates = this.dates;
    const bySlot = Array.from(dates, (_, at) => at).sort((a, b) => (dates[a]! < dates[b]! ? -1 : 1));
    const rank = new Int32Array(dates.length);
    for (let r = 0; r < bySlot.length; r += 1) rank[bySlot[r]!] = r;
    return rank;
  }
}

/**
 * Reorder `positions` in place by the rank of their dates (`slots`, aligned
 * with them; `rank` by slot, DateSlots.ranks), keeping the given order among
 * equal dates: with positions in id order, that is the (date, id) order of
 * docs/reference/http-api.md §8. Input already in order is only checked.
 */
export function orderByDateRank(positions: Int32Array, slots: Int32Array, rank: Int32Array): void {
  const n = positions.length;
  let sorted = true;
  for (let i = 1; i < n; i += 1) {
    if (rank[slots[i - 1]!]! > rank[slots[i]!]!) {
      sorted = false;
      break;
    }
  }
  if (sorted) return;

  // Counting sort by rank: stable, so equal dates keep the positions' order.
  const start = new Int32Array(rank.length + 1);
  for (let i = 0; i < n; i += 1) {
    const next = rank[slots[i]!]! + 1;
    start[next] = start[next]! + 1;
  }
  for (let r = 1; r <= rank.length; r += 1) start[r] = start[r]! + start[r - 1]!;
  const from = positions.slice();
  for (let i = 0; i < n; i += 1) {
    const r = rank[slots[i]!]!;
    positions[start[r]!] = from[i]!;
    start[r] = start[r]! + 1;
  }
}
