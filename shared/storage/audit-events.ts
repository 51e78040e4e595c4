import type { Db } from 'mongodb';
import { derivedId } from '../ids.js';
import { collections, type AuditEventDoc } from './collections.js';

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once.
 */
export async function recordTransition(db: Db, event: Omit<AuditEventDoc, '_id'>): Promise<void> {
  const _id = derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);
  await collections(db).auditEvents.updateOne({ _id }, { $setOnInsert: { _id, ...event } }, { upsert: true });
}
