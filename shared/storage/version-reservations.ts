// Version reservations on book records (docs/operating/reliability.md "Atomic primitives").
//
// why: FerretDB 1.24 runs a filtered update or delete as a read followed by a
// write by `_id`, so two writers guarded by the same version can both
// "match" and one write is silently lost. The one write it makes atomic is an
// insert under a unique `_id`. So every writer that moves a book record from
// version V (an apply journal's update or delete, its undo, the admin import
// and the import's undo) first inserts the reservation `ORG/COLLECTION/ID@V`: of
// any number of writers guarded by V, exactly one holds the reservation and may
// write; the others see E11000 and treat the record as changed. A holder
// names itself (`op:ID` for a staged operation's journal, `import:UUID` for
// one import), so a retried journal finds its own reservation and goes on.
//
// Reservations stay after the write: one on a version the record has left
// costs nothing and blocks nothing (versions only grow), and the reservations of a
// deleted record remember its last version, so that a record inserted again
// under the same id starts above it (highestReservedVersions): an old plan's
// version check can never pass against new content (ABA).
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections } from './collections.js';
import type { VersionedId } from './port.js';
import { storeAdapter } from './store-adapter.js';
import { findOwnedWhereIn } from './where-in.js';

export type { VersionedId } from './port.js';
export { IMPORT_RESERVATION_LAPSE_MS } from './mongo-primitives.js';

export const operationHolder = (operationId: string): string => `op:${operationId}`;
export const newImportHolder = (): string => `import:${randomUUID()}`;

const reservations = (db: Db) => collections(db).versionReservations;

/**
 * Claim each `{id, version}` of `collection` for `holder`, in one unordered
 * insert (the store port's reserveVersions). Returns the ids whose claim
 * `holder` now holds (taken now, held from an earlier attempt, or taken over
 * from a lapsed import); the others are held by another writer.
 */
export async function reserveVersions(
  db: Db,
  orgId: string,
  collection: string,
  wanted: readonly VersionedId[],
  holder: string,
  now = new Date(),
): Promise<Set<string>> {
  if (wanted.length === 0) return new Set();
  return (await storeAdapter(db)).reserveVersions(orgId, collection, wanted, holder, now);
}

/** Reserve one version; true when `holder` holds it. */
export async function reserveVersion(
  db: Db,
  orgId: string,
  collection: string,
  id: string,
  version: number,
  holder: string,
): Promise<boolean> {
  return (await reserveVersions(db, orgId, collection, [{ id, version }], holder)).has(id);
}

/** Of `ids` in `collection`, the highest version ever reserved, by id (absent: never reserved). */
export async function highestReservedVersions(
  db: Db,
  orgId: string,
  collection: string,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const found = await findOwnedWhereIn(
    db,
    reservations(db),
    orgId,
    'record',
    ids.map((id) => `${collection}/${id}`),
    { record: 1, version: 1 },
  );
  const out = new Map<string, number>();
  for (const c of found) {
    const id = c.record.slice(collection.length + 1);
    out.set(id, Math.max(out.get(id) ?? 0, c.version));
  }
  return out;
}
