// The atomic primitives through the driver (docs/operating/reliability.md
// "Atomic primitives"): the `mongo` adapter's methods of the store port, and
// so the accelerated adapter's too (it keeps them). Each rests on one insert
// under a unique `_id` or unique index, the one write FerretDB 1.24 makes
// atomic, on FerretDB and on MongoDB alike (no transactions); a delete goes
// by an `_id` that names its holder.
import type { Db, Document } from 'mongodb';
import {
  collections,
  type ApplyLeaseStepDoc,
  type AuditEventDoc,
  type HistoryItem,
  type IdempotencyKeyDoc,
  type VersionReservationDoc,
  type PlanLockDoc,
} from './collections.js';
import type { DriverStrategy, VersionedId } from './port.js';
import { isUniqueViolation } from './unique-violation.js';

/**
 * An import claims and writes one batch at a time (milliseconds apart); a
 * claim of an import older than this whose record still has the version is
 * the leftover of an import that died between claim and write, and may be
 * taken over. Claims of staged operations never lapse: their journal is
 * resumed under the same holder.
 */
export const IMPORT_RESERVATION_LAPSE_MS = 5 * 60 * 1000;

export const claimId = (orgId: string, collection: string, id: string, version: number): string =>
  `${orgId}/${collection}/${id}@${version}`;

/** Whether the insert went in; false when a unique index refused it. */
async function inserted(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

/** The store port's reserveVersions through the driver (shared/storage/record-claims.ts says why). */
export async function reserveVersions(
  db: Db,
  driver: DriverStrategy,
  orgId: string,
  collection: string,
  wanted: readonly VersionedId[],
  holder: string,
  now: Date,
): Promise<Set<string>> {
  if (wanted.length === 0) return new Set();
  const claims = collections(db).versionReservations;
  const docs = wanted.map(({ id, version }): VersionReservationDoc => ({
    _id: claimId(orgId, collection, id, version),
    org_id: orgId,
    record: `${collection}/${id}`,
    version,
    holder,
    at: now.toISOString(),
  }));
  let refused = new Set<string>();
  try {
    await claims.insertMany(docs, { ordered: false });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const writeErrors = (err as { writeErrors?: { index: number }[] | { index: number } }).writeErrors;
    const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    // A plain E11000 without per-document errors (a single insert): every doc was refused.
    refused = new Set(list.length > 0 ? list.map((e) => docs[e.index]!._id) : docs.map((d) => d._id));
  }
  const held = new Set(wanted.map((w) => w.id));
  if (refused.size === 0) return held;
  const existing = await driver.findOwnedWhereIn(claims, orgId, '_id', [...refused]);
  const byId = new Map(existing.map((c) => [c._id, c]));
  const insertOnce = (doc: VersionReservationDoc): Promise<boolean> => inserted(() => claims.insertOne(doc));
  for (const [i, doc] of docs.entries()) {
    if (!refused.has(doc._id)) continue;
    const found = byId.get(doc._id);
    const mine =
      found?.holder === holder ||
      (found !== undefined && lapsed(found, now) && (await takeOver(db, found, doc, insertOnce))) ||
      // The claim vanished between the insert and the read (a takeover under way): try once more.
      (found === undefined && (await insertOnce(doc)));
    if (!mine) held.delete(wanted[i]!.id);
  }
  return held;
}

const lapsed = (c: VersionReservationDoc, now: Date): boolean =>
  c.holder.startsWith('import:') && now.getTime() - Date.parse(c.at) >= IMPORT_RESERVATION_LAPSE_MS;

/**
 * Take a lapsed claim over: the takeover itself is claimed by inserting
 * `CLAIM~AT` (AT: the lapsed claim's time), so of several writers meeting
 * the same lapsed claim only one removes it; then it inserts its own, which
 * anyone else may beat (then it is simply not held).
 */
async function takeOver(
  db: Db,
  old: VersionReservationDoc,
  mine: VersionReservationDoc,
  insertOnce: (doc: VersionReservationDoc) => Promise<boolean>,
): Promise<boolean> {
  const marker: VersionReservationDoc = { ...mine, _id: `${old._id}~${old.at}`, record: `takeover:${old.record}` };
  if (!(await insertOnce(marker))) return false;
  // Deleting by `_id` only: the one document at this id is the lapsed claim, and only the marker's winner deletes it.
  await collections(db).versionReservations.deleteOne({ _id: old._id });
  return insertOnce(mine);
}

/** The store port's takeLocks: `first` alone, then the others in one ordered insert. */
export async function takeLocks(
  db: Db,
  locks: readonly PlanLockDoc[],
  first: PlanLockDoc | undefined,
): Promise<boolean> {
  const planLocks = collections(db).planLocks;
  return inserted(async () => {
    if (first) await planLocks.insertOne(first);
    await planLocks.insertMany(first ? locks.filter((d) => d._id !== first._id) : [...locks], { ordered: true });
  });
}

/** The store port's releaseLocks: each matched document's `_id` names the operation, so the delete removes only its own. */
export async function releaseLocks(db: Db, orgId: string, operationId: string): Promise<void> {
  await collections(db).planLocks.deleteMany({ org_id: orgId, staged_operation_id: operationId });
}

/** The store port's dropLock. */
export async function dropLock(db: Db, lock: Pick<PlanLockDoc, '_id' | 'staged_operation_id'>): Promise<number> {
  return (await collections(db).planLocks.deleteOne({ _id: lock._id, staged_operation_id: lock.staged_operation_id }))
    .deletedCount;
}

/** The store port's appendLeaseStep. */
export function appendLeaseStep(db: Db, step: ApplyLeaseStepDoc): Promise<boolean> {
  return inserted(() => collections(db).applyLeases.insertOne(step));
}

/** The store port's claimTransition. */
export function claimTransition(db: Db, claim: AuditEventDoc): Promise<boolean> {
  return inserted(() => collections(db).auditEvents.insertOne(claim));
}

/** The store port's writeTransition: guarded by status, so a retried attempt does not push the history item twice. */
export async function writeTransition(
  db: Db,
  orgId: string,
  id: string,
  from: string,
  set: Document,
  item: HistoryItem,
): Promise<boolean> {
  const written = await collections(db).stagedOperations.updateOne(
    { _id: id, org_id: orgId, status: from as never },
    { $set: set, $push: { history: item } },
  );
  return written.matchedCount === 1;
}

/**
 * The store port's takeOverExpiredKey: on FerretDB a filtered delete is a
 * read then a delete by `_id`, which could remove a record another request
 * has just inserted; so the removal is itself claimed by a unique `_id`.
 */
export async function takeOverExpiredKey(db: Db, record: IdempotencyKeyDoc): Promise<boolean> {
  const keys = collections(db).idempotencyKeys;
  if (!(await inserted(() => keys.insertOne({ ...record, _id: `${record._id}~expired~${record.job_id}` }))))
    return false;
  await keys.deleteOne({ _id: record._id, job_id: record.job_id });
  return true;
}
