import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import {
  collections,
  type StagedOperationDoc,
  type StoredOperationBody,
  type StoredStagedOperation,
} from './collections.js';
import type { InsertGroup } from './postgres-inserts.js';
import { decodeOperation, encodeStaging, storedBodyIds } from './staged-operation-codec.js';
import { isUniqueViolation } from './unique-violation.js';
import type { PostgresPages } from './postgres-pages.js';
import { findById, findByIdsInSql, findOwnedById, findWhereIn, isFerretDb } from './where-in.js';

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
 * anyone can read always has its body. With `embedded` that re-read is made
 * in SQL by `_id` (docs/indexes.md "Scope reads in SQL"), as every other read
 * of an operation by a worker is.
 */
export async function insertStagedOperation(
  db: Db,
  doc: StagedOperationDoc,
  embedded: PostgresPages | null = null,
): Promise<StagedOperationDoc> {
  const { stagedOperations: ops, stagedOperationBodies: bodies } = collections(db);
  const { op, bodies: parts } = encodeNewStaging(doc);
  // In order, one command: the driver sends a body of many parts in as many batches as its message size needs.
  if (parts.length > 0) await bodies.insertMany(parts, { ordered: true });
  try {
    await ops.insertOne(op);
    return doc;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const existing = await findOwnedById(db, ops, doc.org_id, doc._id, undefined, embedded);
    if (!existing) throw err;
    // The earlier attempt's operation stands, with its own body: this one is never read.
    if (parts.length > 0) await bodies.deleteMany({ _id: { $in: parts.map((p) => p._id) } });
    return (await decodeStoredOperations(db, [existing], embedded))[0]!;
  }
}

/**
 * Stored operations in their public shape, in the same order, each with its
 * body (one read for all of them; in SQL on the embedded store).
 */
export async function decodeStoredOperations(
  db: Db,
  stored: readonly StoredStagedOperation[],
  embedded: PostgresPages | null = null,
): Promise<StagedOperationDoc[]> {
  // By organisation: on a sharded cluster each read then targets one shard (docs/operating/scaling.md).
  const idsByOrg = new Map<string, string[]>();
  for (const s of stored) {
    if (s.body_id === undefined) continue;
    const ids = idsByOrg.get(s.org_id) ?? [];
    ids.push(...storedBodyIds(s));
    idsByOrg.set(s.org_id, ids);
  }
  const bodies = new Map<string, StoredOperationBody>();
  for (const [orgId, ids] of idsByOrg)
    for (const body of await readBodies(db, orgId, ids, embedded)) bodies.set(body._id, body);
  return stored.map((s) =>
    decodeOperation(
      s,
      storedBodyIds(s).map((id) => bodies.get(id)),
    ),
  );
}

/** The org's bodies with these ids: in SQL by FerretDB's own `_id` btree on the embedded store (the owner checked by decodeOperation). */
async function readBodies(
  db: Db,
  orgId: string,
  ids: readonly string[],
  embedded: PostgresPages | null,
): Promise<StoredOperationBody[]> {
  const viaSql = await findByIdsInSql(db, 'staged_operation_bodies', ids, undefined, embedded);
  return (
    (viaSql as StoredOperationBody[] | null) ??
    findWhereIn(db, collections(db).stagedOperationBodies, orgId, '_id', ids)
  );
}

/**
 * Only the operation's status (null when it is not the organisation's): for
 * a caller that polls it, without reading (and decoding) its plan, context and
 * journal each time, which are megabytes for a big repair. In SQL on the
 * embedded store, only the two fields.
 */
export async function findStagedOperationStatus(
  db: Db,
  orgId: string,
  id: string,
  embedded: PostgresPages | null = null,
): Promise<StagedOperationDoc['status'] | null> {
  const doc = await findById(db, collections(db).stagedOperations, id, { org_id: 1, status: 1 }, embedded);
  return doc && doc.org_id === orgId ? doc.status : null;
}

/**
 * The organisation's operation by id. With the embedded store's PostgreSQL
 * (a worker's `embedded`), read in SQL by FerretDB's own `_id` btree and
 * decoded here: an operation's plan can be tens of MB as JSON (a
 * 10,000-transaction repair: 13 MB), and FerretDB spends seconds of CPU
 * converting it on every read (docs/indexes.md "Scope reads in SQL").
 */
export async function findStagedOperation(
  db: Db,
  orgId: string,
  id: string,
  embedded: PostgresPages | null = null,
): Promise<StagedOperationDoc | null> {
  let stored: StoredStagedOperation | null | undefined;
  if (embedded && (await isFerretDb(db)))
    stored = (await embedded.ownedById(db, 'staged_operations', orgId, id)) as StoredStagedOperation | null | undefined;
  if (stored === undefined) stored = await findOwnedById(db, collections(db).stagedOperations, orgId, id);
  return stored === null ? null : (await decodeStoredOperations(db, [stored], embedded))[0]!;
}
