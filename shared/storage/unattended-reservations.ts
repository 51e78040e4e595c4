// An actor's unattended total of a UTC day (docs/design/staged-lifecycle.md
// "Unattended limits"), exact under concurrency without an atomic counter
// (FerretDB 1.24 has no atomic `$inc` or guarded update): a chain of
// reservations, step N+1 inserted under `_id` = `ORG:ACTOR:DAY#N+1` with the
// running total after it. Of two stagings building on step N only one gets
// its step in; the other reads the chain again and judges the new total. So
// the totals a chain holds are exactly the sums of the amounts reserved, and
// a reservation is made only while its total stays within the day's limit.
import type { Db } from 'mongodb';
import { collections, type UnattendedReservationDoc } from './collections.js';
import { storeAdapter } from './store-adapter.js';
import { isUniqueViolation } from './unique-violation.js';

const stepId = (key: string, seq: number): string => `${key}#${String(seq).padStart(8, '0')}`;

/** The chain of `actor` on `day` (YYYY-MM-DD, UTC) in the organisation. */
export const reservationKey = (orgId: string, actor: string, day: string): string => `${orgId}:${actor}:${day}`;

/** The chain's latest step: its number and the day's total so far (0, 0 before the first). */
async function latest(db: Db, orgId: string, key: string): Promise<{ seq: number; total_minor: number }> {
  const port = await storeAdapter(db);
  const last = (await port.highest({
    collection: collections(db).unattendedReservations.collectionName,
    equalities: { org_id: orgId, key },
    key: 'seq',
  })) as UnattendedReservationDoc | null;
  return last ? { seq: last.seq, total_minor: last.total_minor } : { seq: 0, total_minor: 0 };
}

/** How many times a reservation reads the chain again after losing a step: enough for any burst of one actor's stagings. */
const ATTEMPTS = 200;

/**
 * Reserve `amountMinor` for `stagedOperationId` on the chain of `key` when
 * `allowed(total so far)` holds (the pure rule decides with the total):
 * true when reserved (or reserved already by this operation: a retried
 * job), false when the rule refuses it.
 */
export async function reserveUnattended(
  db: Db,
  orgId: string,
  key: string,
  stagedOperationId: string,
  amountMinor: number,
  allowed: (dayTotalMinor: number) => boolean,
  at: string,
): Promise<boolean> {
  const c = collections(db).unattendedReservations;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const last = await latest(db, orgId, key);
    if (!allowed(last.total_minor)) return false;
    const seq = last.seq + 1;
    try {
      await c.insertOne({
        _id: stepId(key, seq),
        org_id: orgId,
        key,
        seq,
        staged_operation_id: stagedOperationId,
        amount_minor: amountMinor,
        total_minor: last.total_minor + amountMinor,
        at,
      });
      return true;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new Error(`unattended reservations of ${key}: too much contention`);
}

/** Whether this operation reserved already (a retried staging job finds its own step). */
export async function reservedBy(db: Db, orgId: string, key: string, stagedOperationId: string): Promise<boolean> {
  return (
    (await collections(db).unattendedReservations.findOne({
      org_id: orgId,
      key,
      staged_operation_id: stagedOperationId,
    })) !== null
  );
}
