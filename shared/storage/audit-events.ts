import type { Db } from 'mongodb';
import { derivedId } from '../ids.js';
import { collections, type AuditEventDoc } from './collections.js';
import { isDuplicateKey } from './duplicate-key.js';

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once: a plain insert whose
 * duplicate key means "recorded already" (one statement on FerretDB, where an
 * upsert is a read and then an insert).
 */
export async function recordTransition(db: Db, event: Omit<AuditEventDoc, '_id'>): Promise<void> {
  const _id = derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);
  try {
    await collections(db).auditEvents.insertOne({ _id, ...event });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

/**
 * The compare-and-set of a lifecycle transition (docs/design/staged-lifecycle.md):
 * its audit event, inserted under an id derived from the operation and the
 * status it leaves. An operation leaves each status at most once, so the
 * unique `_id` lets exactly one transition out of a status happen, whatever
 * the store (FerretDB's updates are not atomic compare-and-sets; its unique
 * `_id` is). Returns the event that holds the transition: ours, or the
 * winner's.
 */
export async function claimTransition(db: Db, event: Omit<AuditEventDoc, '_id'> & { from: string }): Promise<AuditEventDoc> {
  const _id = derivedId('aud', `${event.staged_operation_id}:leave:${event.from}`);
  const events = collections(db).auditEvents;
  try {
    await events.insertOne({ _id, ...event });
    return { _id, ...event };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const existing = await events.findOne({ _id });
  if (!existing) throw new Error(`transition claim ${_id} vanished`);
  return existing;
}
