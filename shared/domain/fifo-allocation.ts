// The FIFO walk (docs/reference/http-api.md §8 step 2). Pure arithmetic on integer minor units:
// the caller orders both queues and states what is still open on each side;
// this returns the target allocation, amount per (transaction, entry) pair.

/** One side of the walk: a transaction's remaining amount or an entry's remaining capacity. */
export interface FifoItem {
  id: string;
  /** Non-negative integer minor units (absolute value). */
  amount_minor: number;
}

export interface FifoAllocation {
  transaction_id: string;
  entry_id: string;
  /** Always positive. */
  amount_minor: number;
}

export interface FifoResult {
  /** In walk order: transaction by transaction, each one's entries in queue order. */
  allocations: FifoAllocation[];
  /** What each transaction keeps unallocated, aligned with the input queue. */
  transaction_remainders: number[];
  /** What each entry keeps uncovered, aligned with the input queue. */
  entry_remainders: number[];
}

/**
 * Walk both queues in the order given: allocate min(remaining transaction
 * amount, remaining entry capacity) to the pair, advance whichever is used up.
 * O(transactions + entries).
 */
export function allocateFifo(transactions: readonly FifoItem[], entries: readonly FifoItem[]): FifoResult {
  const transactionRemainders = transactions.map(amountOf);
  const entryRemainders = entries.map(amountOf);
  const allocations: FifoAllocation[] = [];

  let t = 0;
  let e = 0;
  while (t < transactions.length && e < entries.length) {
    const need = transactionRemainders[t]!;
    if (need === 0) {
      t += 1;
      continue;
    }
    const room = entryRemainders[e]!;
    if (room === 0) {
      e += 1;
      continue;
    }
    const amount = Math.min(need, room);
    allocations.push({ transaction_id: transactions[t]!.id, entry_id: entries[e]!.id, amount_minor: amount });
    transactionRemainders[t] = need - amount;
    entryRemainders[e] = room - amount;
  }
  return { allocations, transaction_remainders: transactionRemainders, entry_remainders: entryRemainders };
}

function amountOf(item: FifoItem): number {
  const amount = item.amount_minor;
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new RangeError(`FIFO amount of ${item.id} must be a non-negative safe integer, got ${String(amount)}`);
  }
  return amount;
}

/** Allocations as parallel arrays: positions in the two queues, and the amount; `length` of them are set. */
export interface FifoPairs {
  transaction: Int32Array;
  entry: Int32Array;
  amount: Float64Array;
  length: number;
}

/**
 * allocateFifo over plain amounts, for a caller that works by position (the
 * link repair plan at 100k transactions: no object per item or allocation,
 * no growing arrays). `needs` and `rooms` are the two queues' amounts, already
 * checked to be non-negative safe integers; they are left holding the
 * remainders. Each allocation is appended to `into`, in walk order; it needs
 * room for needs.length + rooms.length of them (each allocation uses up a
 * need or a room).
 */
export function allocateFifoAt(needs: Float64Array, rooms: Float64Array, into: FifoPairs): void {
  let t = 0;
  let e = 0;
  let k = into.length;
  while (t < needs.length && e < rooms.length) {
    const need = needs[t]!;
    if (need === 0) {
      t += 1;
      continue;
    }
    const room = rooms[e]!;
    if (room === 0) {
      e += 1;
      continue;
    }
    const amount = Math.min(need, room);
    into.transaction[k] = t;
    into.entry[k] = e;
    into.amount[k] = amount;
    k += 1;
    needs[t] = need - amount;
    rooms[e] = room - amount;
  }
  into.length = k;
}
