// The maintenance sweep's share of plan locks (docs/design/staged-lifecycle.md
// "Expiry"): remove every lock whose operation no longer holds it — the
// operation is final, or never appeared (its staging job died between the two
// writes; after a grace period, as liveHolders in plan-locks.ts).
import type { Db } from 'mongodb';
import { FINAL_STATUSES } from '../domain/staged-transitions.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';

const ORPHAN_AFTER_MS = 2 * 60 * 1000;

/**
 * The locks are read with three fields, and their operations' statuses in one
 * read by `_id` through the store port (in SQL on FerretDB 1.x, which
 * otherwise converts each whole operation, plan and result, for a projected
 * read), never one read per operation.
 */
export async function sweepDeadLocks(db: Db, now: Date): Promise<number> {
  const c = collections(db);
  const store = await storeAdapter(db);
  const locks = await c.planLocks.find({}, { projection: { _id: 1, staged_operation_id: 1, created_at: 1 } }).toArray();
  const opIds = [...new Set(locks.map((l) => l.staged_operation_id))];
  const status = new Map<string, string>();
  for (const op of (await store.findByIds(c.stagedOperations.collectionName, opIds, { fields: ['status'] })) as Array<{
    _id: string;
    status: string;
  }>)
    status.set(op._id, op.status);
  let removed = 0;
  for (const lock of locks) {
    const s = status.get(lock.staged_operation_id);
    const dead =
      s === undefined
        ? now.getTime() - Date.parse(lock.created_at) >= ORPHAN_AFTER_MS
        : FINAL_STATUSES.includes(s as never);
    if (dead) removed += await store.dropLock(lock);
  }
  return removed;
}
