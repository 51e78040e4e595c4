// One pending operation per subject (docs/reference/http-api.md §6.3, §6.5). A plan's locks are one
// document per key: `key` = `ORG:KEY` under a unique index, which decides
// races (never a read followed by a write), and `_id` = `ORG:KEY#OPERATION`,
// which names the holder. Every delete of a lock goes by its `_id` (or by
// the operation's own id): on FerretDB a filtered delete is a read then a
// delete by `_id`, and because a lock's `_id` names its holder, such a
// delete can only ever remove that holder's lock, never one another
// operation took meanwhile under the same key (docs/operating/reliability.md). Locks are written before their operation
// is visible and removed when it reaches a final state. A lock whose
// operation is final, expired, or never appeared (its job died between the
// two writes) is dead and is cleared by whoever meets it.
import type { Db } from 'mongodb';
import type { PendingHolder, PlanLocks } from '../domain/pending-gate.js';
import { collections, type PlanLockDoc, type StagedOperationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { HOLDING_STATUSES } from '../domain/staged-transitions.js';
import { storeAdapter } from './store-adapter.js';

/** A lock whose operation has not appeared after this long is an orphan. */
const ORPHAN_AFTER_MS = 2 * 60 * 1000;

/** The `_id` of `operationId`'s lock on `key` (`ORG:KEY`). */
export const lockId = (key: string, operationId: string): string => `${key}#${operationId}`;

/** The lock key of the plan's subject itself. */
const subjectLockKey = (orgId: string, wanted: PlanLocks): string => `${orgId}:${wanted.subject_key}`;

export function lockKeys(orgId: string, wanted: PlanLocks): string[] {
  return [
    subjectLockKey(orgId, wanted),
    ...(wanted.other_subject_keys ?? []).map((key) => `${orgId}:${key}`),
    ...wanted.entry_ids.map((id) => `${orgId}:le:${id}`),
    ...wanted.transaction_ids.map((id) => `${orgId}:bt:${id}`),
    ...(wanted.document_ids ?? []).map((id) => `${orgId}:doc:${id}`),
  ];
}

/** The live pending operations holding any of the keys; dead locks are cleared on the way. */
export async function liveHolders(
  db: Db,
  orgId: string,
  keys: string[],
  now: Date,
  exceptOperationId?: string,
): Promise<PendingHolder[]> {
  return liveHoldersAmong(db, orgId, await locksOnKeys(db, orgId, keys), now, exceptOperationId);
}

/**
 * The org's locks on these keys, through the store port. On FerretDB 1.x one SQL query on
 * FerretDB's own unique btree of `key` (docs/indexes.md "Worker reads in
 * SQL"): through FerretDB, past 1,000 keys, the read is one pass over the
 * organisation's locks (ferretdb/driver-strategy.ts), about 2 CPU-seconds of FerretDB for a
 * 10k-transaction scope's 20,001 keys.
 */
async function locksOnKeys(db: Db, orgId: string, keys: readonly string[]): Promise<PlanLockDoc[]> {
  return (await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).planLocks.collectionName,
    equalities: {},
    any: { field: 'key', values: keys },
    owner: orgId,
  })) as PlanLockDoc[];
}

/** As liveHolders, of locks already read (a refused takeLocks's), so the keys are read once. */
export async function liveHoldersAmong(
  db: Db,
  orgId: string,
  locks: readonly PlanLockDoc[],
  now: Date,
  exceptOperationId?: string,
): Promise<PendingHolder[]> {
  const others = locks.filter((l) => l.staged_operation_id !== exceptOperationId);
  if (others.length === 0) return [];
  const ops = await holdersStatus(db, orgId, [...new Set(others.map((l) => l.staged_operation_id))]);
  const opById = new Map(ops.map((o) => [o._id, o]));
  const store = await storeAdapter(db);
  const holders: PendingHolder[] = [];
  for (const lock of others) {
    const op = opById.get(lock.staged_operation_id);
    const live = op
      ? // An apply under way holds its locks to the end, whatever its expiry.
        op.status === 'applying' || (HOLDING_STATUSES.includes(op.status) && op.expires_at > now.toISOString())
      : now.getTime() - Date.parse(lock.created_at) < ORPHAN_AFTER_MS;
    if (live)
      holders.push({
        staged_operation_id: lock.staged_operation_id,
        subject_key: lock.scope_key,
        plan_hash: lock.plan_hash,
      });
    else await store.dropLock(lock);
  }
  return holders;
}

/**
 * The status and expiry of the holders' operations. On FerretDB 1.x
 * the projection is made in PostgreSQL: through FerretDB a projected read
 * still converts the whole operation, plan and all (docs/indexes.md "Worker
 * reads in SQL").
 */
async function holdersStatus(
  db: Db,
  orgId: string,
  ids: string[],
): Promise<Array<Pick<StagedOperationDoc, '_id' | 'status' | 'expires_at'>>> {
  return (await (
    await storeAdapter(db)
  ).findByIds(collections(db).stagedOperations.collectionName, ids, {
    fields: ['status', 'expires_at'],
    owner: orgId,
  })) as Array<Pick<StagedOperationDoc, '_id' | 'status' | 'expires_at'>>;
}

/**
 * Take every key for the operation, or none. Returns true when all keys are
 * held by `operationId` (including keys it already held: a retried job).
 *
 * Keys are inserted one ordered batch in sorted order, so two stagings whose keys
 * overlap meet first at their lowest shared key: exactly one of them gets it
 * and goes on to take the rest, the other stops there and gives back only
 * what it took before it. No two racing stagings can both lose.
 */
export async function acquireLocks(
  db: Db,
  orgId: string,
  wanted: PlanLocks,
  operationId: string,
  planHash: string,
): Promise<boolean> {
  return (await takeLocks(db, orgId, wanted, operationId, planHash)).acquired;
}

/**
 * Past this many keys a staging takes its subject key alone first: a subject that
 * is already held (the same plan staged again, a second agent on it) is then
 * refused by a one-document insert instead of an insert of every key, which
 * for a 10,000-transaction repair is 20,001 documents and was 2.4 CPU-seconds
 * of FerretDB and PostgreSQL (docs/design/performance.md "Store levers").
 * A small set of keys stays one insert: one round trip fewer on every staging.
 */
export const SUBJECT_KEY_FIRST_ABOVE = 100;

/**
 * As acquireLocks; a refused take also returns the locks it read on
 * its keys (before giving its own back), for liveHoldersAmong: a
 * refused take reads its keys once, not twice (docs/design/performance.md).
 * The unique index still decides every race: the subject key taken first is
 * one more unique insert, never a read.
 */
export async function takeLocks(
  db: Db,
  orgId: string,
  wanted: PlanLocks,
  operationId: string,
  planHash: string,
): Promise<{ acquired: true } | { acquired: false; locks: PlanLockDoc[] }> {
  const c = collections(db);
  const store = await storeAdapter(db);
  // The orphan timer counts from here: the moment the lock exists.
  const docs = lockDocs(orgId, wanted, operationId, planHash, new Date().toISOString());
  const keys = docs.map((d) => d.key);
  const subject =
    docs.length > SUBJECT_KEY_FIRST_ABOVE ? docs.find((d) => d.key === subjectLockKey(orgId, wanted)) : undefined;
  if (await store.takeLocks(docs, subject)) return { acquired: true };
  const held = await locksOnKeys(db, orgId, keys);
  if (held.length === keys.length && held.every((l) => l.staged_operation_id === operationId))
    return { acquired: true };
  // Give back what this attempt took, unless the operation exists already:
  // then the locks are its own and stay until it reaches a final state.
  if (!(await store.findOwnedById(c.stagedOperations.collectionName, orgId, operationId, { _id: 1 }))) {
    await releaseLocks(db, orgId, operationId);
  }
  return { acquired: false, locks: held };
}

/** The lock documents of a plan's locks, by key. */
export function lockDocs(
  orgId: string,
  wanted: PlanLocks,
  operationId: string,
  planHash: string,
  createdAt: string,
): PlanLockDoc[] {
  return [...lockKeys(orgId, wanted)].sort().map((key) => ({
    _id: lockId(key, operationId),
    key,
    org_id: orgId,
    staged_operation_id: operationId,
    scope_key: wanted.subject_key,
    plan_hash: planHash,
    created_at: createdAt,
  }));
}

/** Every lock the operation holds (the store port's releaseLocks); each lock's `_id` names the operation, so the delete removes only its own. */
export async function releaseLocks(db: Db, orgId: string, operationId: string): Promise<void> {
  await (await storeAdapter(db)).releaseLocks(orgId, operationId);
}

/**
 * Locks written before `key` existed (`_id` = `ORG:KEY`) become locks of the
 * current shape, before the unique index on `key` is built (ensureIndexes):
 * insert the new one, then delete the old one by its `_id`. Once that index
 * exists every lock has its `key`, and the collection is not read again (a
 * filter on a missing field reads every lock on FerretDB: each process's start
 * paid for the store's whole set of locks).
 */
export async function upgradeOldLocks(db: Db): Promise<number> {
  const c = collections(db);
  const indexes = await c.planLocks.indexes();
  if (indexes.some((ix) => ix.unique === true && Object.keys(ix.key).join() === 'key')) return 0;
  let upgraded = 0;
  for (const old of await c.planLocks.find({ key: { $exists: false } }).toArray()) {
    try {
      await c.planLocks.insertOne({ ...old, _id: lockId(old._id, old.staged_operation_id), key: old._id });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    await c.planLocks.deleteOne({ _id: old._id });
    upgraded += 1;
  }
  return upgraded;
}
