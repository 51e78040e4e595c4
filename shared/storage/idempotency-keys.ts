// Idempotency-Key records (DESIGN §5, §6): `_id` derived from org + actor +
// key, so the first request to insert it owns the key and MongoDB's unique
// `_id` settles races. Swept after 24 h by a repeatable job (FerretDB has no
// TTL indexes).
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections, type IdempotencyKeyDoc } from './collections.js';
import { isDuplicateKey } from './duplicate-key.js';

export const KEY_RETENTION_MS = 24 * 60 * 60 * 1000;


export function idempotencyRecordId(orgId: string, actor: string, key: string): string {
  return `idem_${createHash('sha256').update(`${orgId}\n${actor}\n${key}`).digest('hex')}`;
}

/** Insert the record, or return the one that holds the key already. */
export async function claimKey(db: Db, doc: Omit<IdempotencyKeyDoc, 'expires_at'>): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyKeyDoc }> {
  const expires = new Date(Date.parse(doc.created_at) + KEY_RETENTION_MS).toISOString();
  try {
    await collections(db).idempotencyKeys.insertOne({ ...doc, expires_at: expires });
    return { claimed: true };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const existing = await collections(db).idempotencyKeys.findOne({ _id: doc._id });
  // Swept between the failed insert and this read: claim it again.
  if (!existing) return claimKey(db, doc);
  return { claimed: false, existing };
}

export async function sweepIdempotencyKeys(db: Db, now: Date): Promise<number> {
  return (await collections(db).idempotencyKeys.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
