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
  /** A transition that ends an apply carries the apply's result (so that it can be rolled forward). */
  result?: unknown;
}

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once.
 */
export async function recordTransition(db: Db, event: Omit<AuditEventDoc, '_id'>): Promise<void> {
  const _id = derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);
  await collections(db).auditEvents.updateOne({ _id }, { $setOnInsert: { _id, ...event } }, { upsert: true });
}

/**
 * The compare-and-set of a lifecycle transition (docs/staged-lifecycle.md):
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
    if ((err as { code?: number }).code !== 11000) throw err;
  }
  const existing = await events.findOne({ _id });
  if (!existing) throw new Error(`transition claim ${_id} vanished`);
  return existing;
}
