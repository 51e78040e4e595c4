// Items grouped by a key, in first-seen order of keys and items (Map.groupBy
// arrives only in Node 21; the service runs on Node 20).
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
