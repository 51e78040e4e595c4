import type { Db } from 'mongodb';
import type { StagedStatus } from '../domain/staged-transitions.js';
import { derivedId } from '../ids.js';
import { collections, type AuditEventDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { withNewEvent, type EventOperationView } from './events.js';

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once: a plain insert whose
 * duplicate key means "recorded already" (one statement on FerretDB, where an
 * upsert is a read and then an insert).
 */
export async function recordTransition(db: Db, event: Omit<AuditEventDoc, '_id' | 'event'>, view: EventOperationView): Promise<void> {
  const _id = derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);
  try {
    // The feed's event rides on the same insert (docs/reference/webhooks.md).
    await withNewEvent(db, event.org_id, _id, event.to as StagedStatus, view, (feedEvent) => collections(db).auditEvents.insertOne({ _id, ...event, event: feedEvent }));
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/** The `_id` of the claim of the transition out of `from` (one per operation and status left). */
export const transitionClaimId = (stagedOperationId: string, from: string): string => derivedId('aud', `${stagedOperationId}:leave:${from}`);

/**
 * The compare-and-set of a lifecycle transition (docs/design/staged-lifecycle.md):
 * its audit event, inserted under an id derived from the operation and the
 * status it leaves. An operation leaves each status at most once, so the
 * unique `_id` lets exactly one transition out of a status happen, whatever
 * the store (FerretDB's updates are not atomic compare-and-sets; its unique
 * `_id` is). Returns the event that holds the transition: ours, or the
 * winner's.
 */
export async function claimTransition(db: Db, event: Omit<AuditEventDoc, '_id' | 'event'> & { from: string }, view: EventOperationView): Promise<AuditEventDoc> {
  const _id = transitionClaimId(event.staged_operation_id, event.from);
  const events = collections(db).auditEvents;
  try {
    // The claim carries the transition's feed event: one insert, so exactly one event per transition (docs/reference/webhooks.md).
    return await withNewEvent(db, event.org_id, _id, event.to as StagedStatus, view, async (feedEvent) => {
      const claim: AuditEventDoc = { _id, ...event, event: feedEvent };
      await events.insertOne(claim);
      return claim;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const existing = await events.findOne({ _id });
  if (!existing) throw new Error(`transition claim ${_id} vanished`);
  return existing;
}
