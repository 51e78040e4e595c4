// One pending operation per scope (docs/reference/http-api.md §6.3, §6.5). A claim becomes one lock
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
import type { PendingHolder, PlanLockClaim } from '../domain/scope.js';
import { collections, type ScopeLockDoc, type StagedOperationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { HOLDING_STATUSES } from '../domain/staged-transitions.js';
import { storeAdapter } from './store-adapter.js';

/** A lock whose operation has not appeared after this long is an orphan. */
const ORPHAN_AFTER_MS = 2 * 60 * 1000;

/** The `_id` of `operationId`'s lock on `key` (`ORG:KEY`). */
export const lockId = (key: string, operationId: string): string => `${key}#${operationId}`;

/** The lock key of the claim's scope itself. */
const scopeLockKey = (orgId: string, claim: PlanLockClaim): string => `${orgId}:${claim.scope_key}`;

export function lockKeys(orgId: string, claim: PlanLockClaim): string[] {
  return [
    scopeLockKey(orgId, claim),
    ...claim.entry_ids.map((id) => `${orgId}:le:${id}`),
    ...claim.transaction_ids.map((id) => `${orgId}:bt:${id}`),
    ...(claim.document_ids ?? []).map((id) => `${orgId}:doc:${id}`),
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
 * FerretDB's own unique btree of `key` (docs/indexes.md "Scope reads in
 * SQL"): through FerretDB, past 1,000 keys, the read is one pass over the
 * organisation's locks (where-in.ts), about 2 CPU-seconds of FerretDB for a
 * 10k-transaction scope's 20,001 keys.
 */
async function locksOnKeys(db: Db, orgId: string, keys: readonly string[]): Promise<ScopeLockDoc[]> {
  return (await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).scopeLocks.collectionName,
    equalities: {},
    any: { field: 'key', values: keys },
    owner: orgId,
  })) as ScopeLockDoc[];
}

/** As liveHolders, of locks already read (a failed claim's: claimLocks), so the keys are read once. */
export async function liveHoldersAmong(
  db: Db,
  orgId: string,
  locks: readonly ScopeLockDoc[],
  now: Date,
  exceptOperationId?: string,
): Promise<PendingHolder[]> {
  const c = collections(db);
  const others = locks.filter((l) => l.staged_operation_id !== exceptOperationId);
  if (others.length === 0) return [];
  const ops = await holdersStatus(db, orgId, [...new Set(others.map((l) => l.staged_operation_id))]);
  const opById = new Map(ops.map((o) => [o._id, o]));
  const holders: PendingHolder[] = [];
  for (const lock of others) {
    const op = opById.get(lock.staged_operation_id);
    const live = op
      ? // An apply under way holds its scope to the end, whatever its expiry.
        op.status === 'applying' || (HOLDING_STATUSES.includes(op.status) && op.expires_at > now.toISOString())
      : now.getTime() - Date.parse(lock.created_at) < ORPHAN_AFTER_MS;
    if (live)
      holders.push({
        staged_operation_id: lock.staged_operation_id,
        scope_key: lock.scope_key,
        plan_hash: lock.plan_hash,
      });
    else await c.scopeLocks.deleteOne({ _id: lock._id });
  }
  return holders;
}

/**
 * The status and expiry of the holders' operations. On FerretDB 1.x
 * the projection is made in PostgreSQL: through FerretDB a projected read
 * still converts the whole operation, plan and all (docs/indexes.md "Scope
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
 * Keys are inserted one ordered batch in sorted order, so two claims that
 * overlap meet first at their lowest shared key: exactly one of them gets it
 * and goes on to take the rest, the other stops there and gives back only
 * what it took before it. No two racing claims can both lose.
 */
export async function acquireLocks(
  db: Db,
  orgId: string,
  claim: PlanLockClaim,
  operationId: string,
  planHash: string,
): Promise<boolean> {
  return (await claimLocks(db, orgId, claim, operationId, planHash)).acquired;
}

/**
 * Past this many keys a claim takes its scope key alone first: a scope that
 * is already held (the same plan staged again, a second agent on it) is then
 * refused by a one-document insert instead of an insert of every key, which
 * for a 10,000-transaction scope is 20,001 documents and was 2.4 CPU-seconds
 * of FerretDB and PostgreSQL (docs/design/performance.md "Store levers").
 * A small claim stays one insert: one round trip fewer on every staging.
 */
export const SCOPE_KEY_FIRST_ABOVE = 100;

/**
 * As acquireLocks; a claim that failed also returns the locks it read on
 * the claim's keys (before giving its own back), for liveHoldersAmong: a
 * refused claim reads its keys once, not twice (docs/design/performance.md).
 * The unique index still decides every race: the scope key taken first is
 * one more unique insert, never a read.
 */
export async function claimLocks(
  db: Db,
  orgId: string,
  claim: PlanLockClaim,
  operationId: string,
  planHash: string,
): Promise<{ acquired: true } | { acquired: false; locks: ScopeLockDoc[] }> {
  const c = collections(db);
  // The orphan timer counts from here: the moment the lock exists.
  const docs = lockDocs(orgId, claim, operationId, planHash, new Date().toISOString());
  const keys = docs.map((d) => d.key);
  try {
    const scope =
      docs.length > SCOPE_KEY_FIRST_ABOVE ? docs.find((d) => d.key === scopeLockKey(orgId, claim)) : undefined;
    if (scope) await c.scopeLocks.insertOne(scope);
    await c.scopeLocks.insertMany(scope ? docs.filter((d) => d !== scope) : docs, { ordered: true });
    return { acquired: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const held = await locksOnKeys(db, orgId, keys);
  if (held.length === keys.length && held.every((l) => l.staged_operation_id === operationId))
    return { acquired: true };
  // Give back what this attempt took, unless the operation exists already:
  // then the locks are its own and stay until it reaches a final state.
  if (
    !(await (await storeAdapter(db)).findOwnedById(c.stagedOperations.collectionName, orgId, operationId, { _id: 1 }))
  ) {
    await releaseLocks(db, orgId, operationId);
  }
  return { acquired: false, locks: held };
}

/** The lock documents of a claim, by key. */
export function lockDocs(
  orgId: string,
  claim: PlanLockClaim,
  operationId: string,
  planHash: string,
  createdAt: string,
): ScopeLockDoc[] {
  return [...lockKeys(orgId, claim)].sort().map((key) => ({
    _id: lockId(key, operationId),
    key,
    org_id: orgId,
    staged_operation_id: operationId,
    scope_key: claim.scope_key,
    plan_hash: planHash,
    created_at: createdAt,
  }));
}

/** Every lock the operation holds; each matched document's `_id` names the operation, so the delete removes only its own. */
export async function releaseLocks(db: Db, orgId: string, operationId: string): Promise<void> {
  await collections(db).scopeLocks.deleteMany({ org_id: orgId, staged_operation_id: operationId });
}

/**
 * Locks written before `key` existed (`_id` = `ORG:KEY`) become locks of the
 * current shape, before the unique index on `key` is built (ensureIndexes):
 * insert the new one, then delete the old one by its `_id`.
 */
export async function upgradeOldLocks(db: Db): Promise<number> {
  const c = collections(db);
  let upgraded = 0;
  for (const old of await c.scopeLocks.find({ key: { $exists: false } }).toArray()) {
    try {
      await c.scopeLocks.insertOne({ ...old, _id: lockId(old._id, old.staged_operation_id), key: old._id });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    await c.scopeLocks.deleteOne({ _id: old._id });
    upgraded += 1;
  }
  return upgraded;
}
