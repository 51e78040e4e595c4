// What staging and applying a revert read and write beyond the books
// (docs/design/staged-lifecycle.md "Reverts"): the records an apply journal
// wrote, as they are now; the operations of a kind whose input names a record
// (a revert's reverted operation, a reconciliation's account); and the
// reverted operation's `reverted_by`. Reads and writes only: the worker's
// revert kind decides.
import type { Db } from 'mongodb';
import type { StagedKind } from '../domain/staged-kind.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';

/** A record as stored, without `_id` and `org_id` (its `version` among its fields). */
export type CurrentRecord = Record<string, unknown> & { version: number };

/** The organisation's records by collection and id, as they are now (absent: not there), by `collection/id`. */
export async function currentRecords(
  db: Db,
  orgId: string,
  refs: ReadonlyArray<{ collection: string; id: string }>,
): Promise<Map<string, CurrentRecord | null>> {
  const byCollection = new Map<string, string[]>();
  for (const r of refs) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.id]);
  const found = new Map<string, CurrentRecord | null>(refs.map((r) => [`${r.collection}/${r.id}`, null]));
  const port = await storeAdapter(db);
  await Promise.all(
    [...byCollection].map(async ([collection, ids]) => {
      for (const doc of await port.findByIds(collection, [...new Set(ids)], { owner: orgId })) {
        const { _id, org_id: _org, ...fields } = doc;
        found.set(`${collection}/${String(_id)}`, fields as CurrentRecord);
      }
    }),
  );
  return found;
}

/** An operation of a kind whose input names a record, as `operationsNaming` reads it. */
export interface NamingOperation {
  id: string;
  status: StagedStatus;
  reverted_by: string | null;
  /** When its apply ended (null before). */
  applied_at: string | null;
}

/** The organisation's operations of `kind` whose `input[field]` is `value` (a revert's reverted operation, a reconciliation's account). */
export async function operationsNaming(
  db: Db,
  orgId: string,
  kind: StagedKind,
  field: string,
  value: string,
  statuses: readonly StagedStatus[],
): Promise<NamingOperation[]> {
  const docs = await collections(db)
    .stagedOperations.find(
      { org_id: orgId, kind, status: { $in: [...statuses] }, [`input.${field}`]: value },
      { projection: { _id: 1, status: 1, reverted_by: 1, history: 1 } },
    )
    .toArray();
  return docs.map((d) => ({
    id: d._id,
    status: d.status,
    reverted_by: d.reverted_by ?? null,
    applied_at: d.history.find((h) => h.to === 'applied')?.at ?? null,
  }));
}

/** Record on the reverted operation the revert that was applied (idempotent; the operation is final, nothing else writes it). */
export async function markReverted(db: Db, orgId: string, id: string, revertId: string): Promise<void> {
  await collections(db).stagedOperations.updateOne({ _id: id, org_id: orgId }, { $set: { reverted_by: revertId } });
}
