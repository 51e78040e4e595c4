import type { Db } from 'mongodb';
import { collections, type StagedOperationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findOwnedById } from './where-in.js';

/** Insert once: a retried job finds its own operation already there and gets it back. */
export async function insertStagedOperation(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  const ops = collections(db).stagedOperations;
  try {
    await ops.insertOne(doc);
    return doc;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const existing = await findOwnedById(db, ops, doc.org_id, doc._id);
    if (!existing) throw err;
    return existing;
  }
}

export async function findStagedOperation(db: Db, orgId: string, id: string): Promise<StagedOperationDoc | null> {
  return findOwnedById(db, collections(db).stagedOperations, orgId, id);
}

