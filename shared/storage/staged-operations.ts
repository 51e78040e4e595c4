import type { Db } from 'mongodb';
import { collections, type StagedOperationDoc } from './collections.js';
import { decodeOperation, encodeOperation, type StoredStagedOperation } from './staged-operation-codec.js';
import { isUniqueViolation } from './unique-violation.js';
import type { PostgresPages } from './postgres-pages.js';
import { findOwnedById, isFerretDb } from './where-in.js';

/** Insert once: a retried job finds its own operation already there and gets it back. */
export async function insertStagedOperation(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  const ops = collections(db).stagedOperations;
  try {
    await ops.insertOne(encodeOperation(doc));
    return doc;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const existing = await findOwnedById(db, ops, doc.org_id, doc._id);
    if (!existing) throw err;
    return decodeOperation(existing);
  }
}

/**
 * The organisation's operation by id. With the embedded store's PostgreSQL
 * (a worker's `embedded`), read in SQL by FerretDB's own `_id` btree and
 * decoded here: an operation's plan can be tens of MB as JSON (a
 * 10,000-transaction repair: 35 MB), and FerretDB spends seconds of CPU
 * converting it on every read (docs/indexes.md "Scope reads in SQL").
 */
export async function findStagedOperation(db: Db, orgId: string, id: string, embedded: PostgresPages | null = null): Promise<StagedOperationDoc | null> {
  if (embedded && (await isFerretDb(db))) {
    const doc = await embedded.ownedById(db, 'staged_operations', orgId, id);
    if (doc !== undefined) return doc === null ? null : decodeOperation(doc as StoredStagedOperation);
  }
  const stored = await findOwnedById(db, collections(db).stagedOperations, orgId, id);
  return stored === null ? null : decodeOperation(stored);
}

