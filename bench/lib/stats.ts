// Percentiles and medians of the bench's samples (milliseconds unless said).

/** The value at quantile q (0..1) of the samples, nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** Wall time of one awaited call, in ms. */
export async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** Rounded for the table and the JSON: 0.1 ms below 100, whole numbers above. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Math.abs(x) < 100 ? Math.round(x * 100) / 100 : Math.round(x * 10) / 10;
}

/** `repeat` runs of `run`, each answering one figure per key; the median of each key. */
export async function medianOf<K extends string>(
  repeat: number,
  run: (i: number) => Promise<Record<K, number>>,
): Promise<Record<K, number>> {
  const runs: Record<K, number>[] = [];
  for (let i = 0; i < repeat; i += 1) runs.push(await run(i));
  const keys = Object.keys(runs[0]!) as K[];
  return Object.fromEntries(keys.map((k) => [k, round(median(runs.map((r) => r[k])))])) as Record<K, number>;
}
