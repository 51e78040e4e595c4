// The amount of a staged operation (docs/reference/http-api.md "Amount of each
// kind"): what its kind defines as the money it moves, as one non-negative
// integer of minor units. Pure: derived from the plan (and the context stored
// beside it) whenever a view is built, so plans and plan_hash stay as staged.

export interface KindAmount {
  amount_minor: number;
  /** The plan's currency; null where the kind has none (the view then answers the organisation's base currency). */
  currency: string | null;
}

export interface OperationAmount {
  amount_minor: number;
  currency: string;
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Σ|values|, exact. Each value is a safe integer (every plan's amounts are), but
 * a sum of many can pass 2^53 − 1: it then saturates at 2^53 − 1, which no
 * amount bracket exceeds, so a rule by amount still treats it as the largest.
 */
export function sumAbsMinor(values: readonly number[]): number {
  let total = 0n;
  for (const v of values) total += v < 0 ? -BigInt(v) : BigInt(v);
  return Number(total > MAX ? MAX : total);
}

/** A kind's amount in the organisation's base currency where the kind has no currency of its own. */
export function resolvedAmount(amount: KindAmount, baseCurrency: string): OperationAmount {
  return { amount_minor: amount.amount_minor, currency: amount.currency ?? baseCurrency };
}
