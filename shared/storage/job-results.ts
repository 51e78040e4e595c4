// The answer of every finished staging job, kept ≥ 24 h in MongoDB so that
// polling and idempotent replays outlive BullMQ's own job retention.
import type { Db } from 'mongodb';
import { collections, type JobResultDoc } from './collections.js';

export const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

export async function saveJobResult(db: Db, doc: Omit<JobResultDoc, 'expires_at'>): Promise<void> {
  const expires = new Date(Date.parse(doc.finished_at) + RESULT_RETENTION_MS).toISOString();
  // First write wins: a job is finished once, a retried attempt cannot change its answer.
  await collections(db).jobResults.updateOne({ _id: doc._id }, { $setOnInsert: { ...doc, expires_at: expires } }, { upsert: true });
}

export async function findJobResult(db: Db, orgId: string, jobId: string): Promise<JobResultDoc | null> {
  return collections(db).jobResults.findOne({ _id: jobId, org_id: orgId });
}

export async function sweepJobResults(db: Db, now: Date): Promise<number> {
  return (await collections(db).jobResults.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
