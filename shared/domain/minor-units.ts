// Exact sums of integer minor units (docs/reference/http-api.md §7): summed as
// BigInt, answered as a number when it is a safe integer, else as its decimal
// string.

/** The exact sum of integer minor amounts. */
export function sumMinor(amounts: readonly number[]): bigint {
  let sum = 0n;
  for (const a of amounts) sum += BigInt(a);
  return sum;
}

export function isSafeMinor(n: bigint): boolean {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= -BigInt(Number.MAX_SAFE_INTEGER);
}

/** An exact amount in an answer: a number when it is a safe integer, else its decimal string. */
export function minorOut(n: bigint): number | string {
  return isSafeMinor(n) ? Number(n) : n.toString();
}
