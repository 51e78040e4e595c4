// Idempotency-Key records (docs/reference/http-api.md, staging rules): `_id` derived
// from org + actor + key, so the first request to insert it owns the key and
// MongoDB's unique `_id` settles races. The record names the job that answers
// for the key: a random id made when the record is created, so a key reused
// after its record expired is a new request. A retry after a retryable answer
// moves the record to a new job (compare-and-set on the old job id). Swept
// after 24 h by a repeatable job (FerretDB has no TTL indexes); a record past
// its expiry is replaced even before the sweep.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections, type IdempotencyKeyDoc } from './collections.js';
import { storeAdapter } from './store-adapter.js';
import { isUniqueViolation } from './unique-violation.js';

export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;

export function idempotencyRecordId(orgId: string, actor: string, key: string): string {
  return `idem_${createHash('sha256').update(`${orgId}\n${actor}\n${key}`).digest('hex')}`;
}

export const newJobId = (): string => `job_${randomUUID()}`;

type NewRecord = Omit<IdempotencyKeyDoc, 'expires_at' | 'job_id'>;

/** Insert the record (with a new job id), or return the live one that holds the key already. */
export async function reserveKey(
  db: Db,
  doc: NewRecord,
  now: Date,
): Promise<{ reserved: true; record: IdempotencyKeyDoc } | { reserved: false; existing: IdempotencyKeyDoc }> {
  const keys = collections(db).idempotencyKeys;
  for (;;) {
    const record: IdempotencyKeyDoc = {
      ...doc,
      job_id: newJobId(),
      expires_at: new Date(Date.parse(doc.created_at) + KEY_RETENTION_MS).toISOString(),
    };
    try {
      await keys.insertOne(record);
      return { reserved: true, record };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
    const existing = await keys.findOne({ _id: doc._id });
    // Swept between the failed insert and this read: reserve it again.
    if (!existing) continue;
    if (existing.expires_at > now.toISOString()) return { reserved: false, existing };
    // Expired but not swept yet: it no longer answers for the key. Remove exactly that record, then reserve the key.
    // On FerretDB a filtered delete is a read then a delete by `_id`, which could remove a record another
    // request has just inserted; so the removal is itself claimed by a unique `_id` (the store port's
    // takeOverExpiredKey: docs/operating/reliability.md "Atomic primitives").
    if (!(await (await storeAdapter(db)).takeOverExpiredKey(existing))) {
      // Another request removes it (and may claim the key first): look again.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Point the key at a new job, because the answer of `fromJobId` was not final.
 * Returns the job id the key now names: ours, or the one a concurrent retry
 * chose first. The choice is settled by inserting a successor record under a
 * unique `_id` derived from the record and the job it replaces (FerretDB does
 * not apply a guarded update atomically; a unique `_id` it does). The
 * successor is swept with the key.
 */
export async function moveKeyToNewJob(db: Db, record: IdempotencyKeyDoc): Promise<string> {
  const keys = collections(db).idempotencyKeys;
  const successorId = `${record._id}>${record.job_id}`;
  let jobId = newJobId();
  try {
    await keys.insertOne({ ...record, _id: successorId, job_id: jobId });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    jobId = (await keys.findOne({ _id: successorId }))?.job_id ?? jobId;
  }
  // Every retry that saw the same old job sets the same successor: idempotent.
  await keys.updateOne({ _id: record._id }, { $set: { job_id: jobId } });
  return jobId;
}

export async function sweepIdempotencyKeys(db: Db, now: Date): Promise<number> {
  return (await collections(db).idempotencyKeys.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
