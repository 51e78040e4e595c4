import type { Db } from 'mongodb';
import { derivedId } from '../ids.js';
import { collections } from './collections.js';

export interface AuditEventDoc {
  _id: string;
  org_id: string;
  at: string;
  actor: string;
  request_id: string;
  staged_operation_id: string;
  from: string | null;
  to: string;
  /** The note given with the transition (approve, reject), else null; absent on events recorded before notes were kept. */
  note?: string | null;
}

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once.
 */
export async function recordTransition(db: Db, event: Omit<AuditEventDoc, '_id'>): Promise<void> {
  const _id = derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);
  await collections(db).auditEvents.updateOne({ _id }, { $setOnInsert: { _id, ...event } }, { upsert: true });
}
