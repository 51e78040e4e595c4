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
import { collections, type VersionReservationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findOwnedWhereIn } from './where-in.js';

/**
 * An import reserves and writes one batch at a time (milliseconds apart); a
 * reservation of an import older than this whose record still has the version is
 * the leftover of an import that died between reservation and write, and may be
 * taken over. Reservations of staged operations never lapse: their journal is
 * resumed under the same holder.
 */
export const IMPORT_RESERVATION_LAPSE_MS = 5 * 60 * 1000;

export const operationHolder = (operationId: string): string => `op:${operationId}`;
export const newImportHolder = (): string => `import:${randomUUID()}`;

const reservationId = (orgId: string, collection: string, id: string, version: number): string =>
  `${orgId}/${collection}/${id}@${version}`;
const reservations = (db: Db) => collections(db).versionReservations;

export interface VersionedId {
  id: string;
  version: number;
}

/**
 * Reserve each `{id, version}` of `collection` for `holder`, in one unordered
 * insert. Returns the ids whose reservation `holder` now holds (taken now, held from
 * an earlier attempt, or taken over from a lapsed import); the others are
 * held by another writer.
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
  const docs = wanted.map(({ id, version }): VersionReservationDoc => ({
    _id: reservationId(orgId, collection, id, version),
    org_id: orgId,
    record: `${collection}/${id}`,
    version,
    holder,
    at: now.toISOString(),
  }));
  let refused = new Set<string>();
  try {
    await reservations(db).insertMany(docs, { ordered: false });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const writeErrors = (err as { writeErrors?: { index: number }[] | { index: number } }).writeErrors;
    const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    // A plain E11000 without per-document errors (a single insert): every doc was refused.
    refused = new Set(list.length > 0 ? list.map((e) => docs[e.index]!._id) : docs.map((d) => d._id));
  }
  const held = new Set(wanted.map((w) => w.id));
  if (refused.size === 0) return held;
  const existing = await findOwnedWhereIn(db, reservations(db), orgId, '_id', [...refused]);
  const byId = new Map(existing.map((c) => [c._id, c]));
  for (const [i, doc] of docs.entries()) {
    if (!refused.has(doc._id)) continue;
    const found = byId.get(doc._id);
    const mine =
      found?.holder === holder ||
      (found !== undefined && lapsed(found, now) && (await takeOver(db, found, doc))) ||
      // The reservation vanished between the insert and the read (a takeover under way): try once more.
      (found === undefined && (await insertOnce(db, doc)));
    if (!mine) held.delete(wanted[i]!.id);
  }
  return held;
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

const lapsed = (c: VersionReservationDoc, now: Date): boolean =>
  c.holder.startsWith('import:') && now.getTime() - Date.parse(c.at) >= IMPORT_RESERVATION_LAPSE_MS;

/**
 * Take a lapsed reservation over: the takeover itself is settled by inserting
 * `RESERVATION~AT` (AT: the lapsed reservation's time), so of several writers meeting
 * the same lapsed reservation only one removes it; then it inserts its own, which
 * anyone else may beat (then it is simply not held).
 */
async function takeOver(db: Db, old: VersionReservationDoc, mine: VersionReservationDoc): Promise<boolean> {
  const marker: VersionReservationDoc = { ...mine, _id: `${old._id}~${old.at}`, record: `takeover:${old.record}` };
  if (!(await insertOnce(db, marker))) return false;
  // Deleting by `_id` only: the one document at this id is the lapsed reservation, and only the marker's winner deletes it.
  await reservations(db).deleteOne({ _id: old._id });
  return insertOnce(db, mine);
}

async function insertOnce(db: Db, doc: VersionReservationDoc): Promise<boolean> {
  try {
    await reservations(db).insertOne(doc);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
