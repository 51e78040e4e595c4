// Exact totals of integer minor units (docs/reference/http-api.md §7): summed
// as BigInt (books.ts `sumMinor`), answered as a number when it is a safe
// integer, else as its decimal string.

export function isSafeMinor(n: bigint): boolean {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER);
}

/** An exact amount in an answer: a number when it is a safe integer, else its decimal string. */
export function minorOut(n: bigint): number | string {
  return isSafeMinor(n) ? Number(n) : n.toString();
}
