import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import {
  collections,
  type StagedOperationDoc,
  type StoredOperationBody,
  type StoredStagedOperation,
} from './collections.js';
import type { InsertGroup } from './port.js';
import { decodeOperation, encodeStaging, storedBodyIds, type ResultClaim } from './staged-operation-codec.js';
import { groupBy } from '../group-by.js';
import { isUniqueViolation } from './unique-violation.js';
import { storeAdapter } from './store-adapter.js';

/** A new operation as stored, with a body id of its own (an earlier attempt's body is never reused). */
const encodeNewStaging = (doc: StagedOperationDoc): ReturnType<typeof encodeStaging> =>
  encodeStaging(doc, `${doc._id}:${randomUUID()}`);

/**
 * The documents insertStagedOperation writes, body first, for a caller that
 * inserts them together with others in one statement (postgres-inserts.ts).
 */
export function stagedOperationInserts(doc: StagedOperationDoc): InsertGroup[] {
  const { op, bodies } = encodeNewStaging(doc);
  return [
    { collection: 'staged_operation_bodies', docs: bodies },
    { collection: 'staged_operations', docs: [op] },
  ];
}

/**
 * Insert once: a retried job finds its own operation already there and gets
 * it back. The body goes first (staged-operation-codec.ts), so an operation
 * anyone can read always has its body. The re-read goes through the store
 * port (in SQL by `_id` on FerretDB 1.x: docs/indexes.md "Worker reads in
 * SQL"), as every other read of an operation by `_id` does.
 */
export async function insertStagedOperation(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  const { stagedOperations: ops, stagedOperationBodies: bodies } = collections(db);
  const { op, bodies: parts } = encodeNewStaging(doc);
  // In order, one command: the driver sends a body of many parts in as many batches as its message size needs.
  if (parts.length > 0) await bodies.insertMany(parts, { ordered: true });
  try {
    await ops.insertOne(op);
    return doc;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const existing = (await (
      await storeAdapter(db)
    ).findOwnedById(ops.collectionName, doc.org_id, doc._id)) as StoredStagedOperation | null;
    if (!existing) throw err;
    // The earlier attempt's operation stands, with its own body: this one is never read.
    if (parts.length > 0) await bodies.deleteMany({ _id: { $in: parts.map((p) => p._id) } });
    return (await decodeStoredOperations(db, [existing]))[0]!;
  }
}

/**
 * Stored operations in their public shape, in the same order, each with its
 * body and the claim holding a long result (one read of each for all of them;
 * in SQL on FerretDB 1.x).
 */
export async function decodeStoredOperations(
  db: Db,
  stored: readonly StoredStagedOperation[],
): Promise<StagedOperationDoc[]> {
  // By organisation: on a sharded cluster each read then targets one shard (docs/operating/scaling.md).
  const bodies = new Map<string, StoredOperationBody>();
  const claims = new Map<string, ResultClaim>();
  await Promise.all(
    [...groupBy(stored, (s) => s.org_id)].map(async ([orgId, ops]) => {
      const bodyIds = ops.flatMap((s) => storedBodyIds(s));
      const claimIds = ops.flatMap((s) => (s.result_claim === undefined ? [] : [s.result_claim]));
      const [bodyDocs, claimDocs] = await Promise.all([
        bodyIds.length === 0 ? [] : readBodies(db, orgId, bodyIds),
        claimIds.length === 0 ? [] : readResultClaims(db, orgId, claimIds),
      ]);
      for (const body of bodyDocs) bodies.set(body._id, body);
      for (const claim of claimDocs) claims.set(claim._id, claim);
    }),
  );
  return stored.map((s) =>
    decodeOperation(
      s,
      storedBodyIds(s).map((id) => bodies.get(id)),
      s.result_claim === undefined ? null : (claims.get(s.result_claim) ?? null),
    ),
  );
}

/**
 * The org's transition claims with these ids (in SQL by `_id` on FerretDB 1.x). Whole: a claim is its result and a
 * few small fields, and its result read as a projected field is put back together value by value.
 */
async function readResultClaims(db: Db, orgId: string, ids: readonly string[]): Promise<ResultClaim[]> {
  return (await (
    await storeAdapter(db)
  ).findByIds(collections(db).auditEvents.collectionName, ids, { owner: orgId })) as ResultClaim[];
}

/** The org's bodies with these ids, through the store port (in SQL by FerretDB's own `_id` btree on FerretDB 1.x). */
async function readBodies(db: Db, orgId: string, ids: readonly string[]): Promise<StoredOperationBody[]> {
  return (await (
    await storeAdapter(db)
  ).findByIds(collections(db).stagedOperationBodies.collectionName, ids, { owner: orgId })) as StoredOperationBody[];
}

/**
 * Only the operation's status (null when it is not the organisation's): for
 * a caller that polls it, without reading (and decoding) its plan, context and
 * journal each time, which are megabytes for a big repair. Only the two
 * fields are read (in SQL on FerretDB 1.x).
 */
export async function findStagedOperationStatus(
  db: Db,
  orgId: string,
  id: string,
): Promise<StagedOperationDoc['status'] | null> {
  const doc = await (
    await storeAdapter(db)
  ).findById(collections(db).stagedOperations.collectionName, id, {
    org_id: 1,
    status: 1,
  });
  return doc && doc.org_id === orgId ? (doc.status as StagedOperationDoc['status']) : null;
}

/**
 * The organisation's operation by id, through the store port: on FerretDB
 * 1.x read in SQL by FerretDB's own `_id` btree and decoded here: an operation's plan can be tens of MB as JSON (a
 * 10,000-transaction repair: 13 MB), and FerretDB spends seconds of CPU
 * converting it on every read (docs/indexes.md "Worker reads in SQL").
 */
export async function findStagedOperation(db: Db, orgId: string, id: string): Promise<StagedOperationDoc | null> {
  const stored = (await (
    await storeAdapter(db)
  ).findOwnedById(collections(db).stagedOperations.collectionName, orgId, id)) as StoredStagedOperation | null;
  return stored === null ? null : (await decodeStoredOperations(db, [stored]))[0]!;
}

/**
 * Only the operation's result (null when it has none or is not the
 * organisation's): for a lean answer that joins it back (job-results.ts),
 * without reading the plan, preconditions and context of its body.
 */
export async function findStagedOperationResult(db: Db, orgId: string, id: string): Promise<unknown> {
  const stored = (await (
    await storeAdapter(db)
  ).findOwnedById(collections(db).stagedOperations.collectionName, orgId, id, {
    _id: 1,
    result: 1,
    result_json: 1,
    result_claim: 1,
  })) as StoredStagedOperation | null;
  if (stored === null) return null;
  return (await decodeStoredOperations(db, [stored]))[0]!.result ?? null;
}
