// Resolving references to records: for each reference (a link's transaction
// or entry id), the position of the record with that id. Used by the link
// repair plan's scope (shared/kinds/ledger-link-repair/plan.ts), where 100k records and a third
// as many links meet.

/**
 * By reference: the position in `records` of the record whose id is
 * `refs[k][field]`, -1 when none was passed. `records` hold each id once;
 * `recordsById` says they are in strict id order (code units).
 *
 * why a merge: the store reads records in id order, so the references,
 * ordered by the id they name (an adaptive sort, linear when they already
 * are), are resolved by one walk over both lists. A map of the references'
 * ids looked up once per record cost ≈ 70 ms per collection at 100k records;
 * the merge ≈ 15 ms, ≈ 25 ms with the references in no useful order. Records
 * in no order (a caller merging reads) take the map.
 */
export function positionsById<K extends string, R extends Record<K, string>>(
  records: readonly { id: string }[],
  recordsById: boolean,
  refs: readonly R[],
  field: K,
): Int32Array {
  const at = new Int32Array(refs.length).fill(-1);
  if (!recordsById) return positionsByMap(records, refs, field, at);
  const order = refsInIdOrder(refs, field);
  const n = records.length;
  let r = 0;
  for (let k = 0; k < order.length; k += 1) {
    const ref = order[k]!;
    const id = refs[ref]![field];
    while (r < n && records[r]!.id < id) r += 1;
    if (r < n && records[r]!.id === id) at[ref] = r;
  }
  return at;
}

/** Indexes of `refs` ordered by the id they name (UTF-16 code units, as compareIds). */
function refsInIdOrder<K extends string, R extends Record<K, string>>(refs: readonly R[], field: K): number[] {
  const order = new Array<number>(refs.length);
  let sorted = true;
  for (let k = 0; k < refs.length; k += 1) {
    order[k] = k;
    if (k > 0 && refs[k - 1]![field] > refs[k]![field]) sorted = false;
  }
  if (!sorted) {
    order.sort((a, b) => {
      const x = refs[a]![field];
      const y = refs[b]![field];
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  }
  return order;
}

function positionsByMap<K extends string, R extends Record<K, string>>(
  records: readonly { id: string }[],
  refs: readonly R[],
  field: K,
  at: Int32Array,
): Int32Array {
  const positions = new Map<string, number>();
  for (let r = 0; r < records.length; r += 1) positions.set(records[r]!.id, r);
  for (let k = 0; k < refs.length; k += 1) at[k] = positions.get(refs[k]![field]) ?? -1;
  return at;
}
