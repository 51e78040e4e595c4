import type { Db } from 'mongodb';
import { collections, type StagedOperationDoc, type StagedStatus } from './collections.js';
import { isDuplicateKey } from './duplicate-key.js';


/** States in which an operation still holds its scope (an apply under way holds it to the end). */
export const PENDING_STATUSES: readonly StagedStatus[] = ['staged', 'approved', 'applying'];

/** How long a staged operation waits for approval (docs/staged-lifecycle.md). */
export const STAGED_TTL_MS = 7 * 24 * 60 * 60 * 1000;


/** Insert once: a retried job finds its own operation already there and gets it back. */
export async function insertStagedOperation(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  const ops = collections(db).stagedOperations;
  try {
    await ops.insertOne(doc);
    return doc;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const existing = await ops.findOne({ _id: doc._id, org_id: doc.org_id });
    if (!existing) throw err;
    return existing;
  }
}

export async function findStagedOperation(db: Db, orgId: string, id: string): Promise<StagedOperationDoc | null> {
  return collections(db).stagedOperations.findOne({ _id: id, org_id: orgId });
}

export async function findStagedOperations(db: Db, orgId: string, ids: string[]): Promise<StagedOperationDoc[]> {
  if (ids.length === 0) return [];
  return collections(db).stagedOperations.find({ org_id: orgId, _id: { $in: ids } }).toArray();
}
