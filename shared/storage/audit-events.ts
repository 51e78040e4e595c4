import type { Db } from 'mongodb';
import type { StagedStatus } from '../domain/staged-transitions.js';
import { derivedId } from '../ids.js';
import { collections, type AuditEventDoc, type EventOperationView, type StagedOperationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { eventFields, eventView, withNewEvent, type EventSource, type Reservation } from './events.js';
import { storeAdapter } from './store-adapter.js';

/**
 * One event per staged-operation transition. The id is derived from the
 * transition so that a retried job records it once: a plain insert whose
 * duplicate key means "recorded already" (one statement on FerretDB, where an
 * upsert is a read and then an insert).
 */
export async function recordTransition(
  db: Db,
  event: Omit<AuditEventDoc, '_id' | 'event'>,
  view: EventOperationView,
  source: EventSource = {},
): Promise<void> {
  const _id = transitionEventId(event);
  try {
    // The feed's event rides on the same insert (docs/reference/webhooks.md).
    await withNewEvent(
      db,
      event.org_id,
      _id,
      event.to as StagedStatus,
      view,
      (fields) => collections(db).auditEvents.insertOne({ _id, ...event, ...fields }),
      source,
    );
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

const transitionEventId = (event: Pick<AuditEventDoc, 'staged_operation_id' | 'from' | 'to'>): string =>
  derivedId('aud', `${event.staged_operation_id}:${event.from ?? ''}:${event.to}`);

/** The `_id` of an operation's staging transition (`null → staged`), as recordTransition derives it. */
export const stagedEventId = (stagedOperationId: string): string => derivedId('aud', `${stagedOperationId}::staged`);

/**
 * Record the staging transition of `op`, with its feed event, once: the id
 * is derived from the operation, so whoever writes it first (the staging
 * job, its retry, the first transition out of `staged`, the recovery sweep)
 * writes the only one (docs/reference/webhooks.md "Written with the transition").
 * `source.reserved`: a sequence the staging job reserved while it took its locks.
 */
export function recordStaged(db: Db, op: StagedOperationDoc, source: EventSource = {}): Promise<void> {
  return recordTransition(db, stagingTransition(op), eventView(op), source);
}

function stagingTransition(op: StagedOperationDoc): Omit<AuditEventDoc, '_id' | 'event'> {
  return {
    org_id: op.org_id,
    at: op.created_at,
    actor: op.created_by,
    request_id: op.request_id,
    staged_operation_id: op._id,
    from: null,
    to: 'staged',
  };
}

/** The document recordStaged inserts for `op`, numbered by a fresh `reservation`: for a caller that inserts it together with the operation. */
export function stagedEventDoc(op: StagedOperationDoc, reservation: Reservation): AuditEventDoc {
  const transition = stagingTransition(op);
  const _id = transitionEventId(transition);
  return { _id, ...transition, ...eventFields(op.org_id, _id, 'staged', eventView(op), reservation) };
}

/**
 * The staging event of an operation still `staged`, written now if its
 * staging job died between inserting the operation and recording it. One
 * `_id` read when it is there (always, but after such a crash).
 */
export async function ensureStagedEvent(db: Db, op: StagedOperationDoc): Promise<boolean> {
  if (op.status !== 'staged') return false;
  if (await collections(db).auditEvents.findOne({ _id: stagedEventId(op._id) }, { projection: { _id: 1 } }))
    return false;
  await recordStaged(db, op);
  return true;
}

/**
 * The `_id` of the claim of the transition out of `from` (one per operation, status left and round: an
 * operation apply sent back to `staged` leaves `staged` and `approved` again, in its next round).
 */
export const transitionClaimId = (stagedOperationId: string, from: string, round = 0): string =>
  derivedId('aud', round === 0 ? `${stagedOperationId}:leave:${from}` : `${stagedOperationId}:leave:${from}:${round}`);

/** Another transition out of the status holds the claim (the store port's claimTransition answered false). */
class TransitionTaken extends Error {}

/**
 * The compare-and-set of a lifecycle transition (docs/design/staged-lifecycle.md):
 * its audit event, inserted under an id derived from the operation and the
 * status it leaves. An operation leaves each status at most once, so the
 * unique `_id` lets exactly one transition out of a status happen, whatever
 * the store (FerretDB's updates are not atomic compare-and-sets; its unique
 * `_id` is). Returns the event that holds the transition: ours, or the
 * winner's.
 */
export async function claimTransition(
  db: Db,
  event: Omit<AuditEventDoc, '_id' | 'event'> & { from: string },
  view: EventOperationView,
  source: EventSource = {},
): Promise<AuditEventDoc> {
  const _id = transitionClaimId(event.staged_operation_id, event.from, event.round ?? 0);
  const events = collections(db).auditEvents;
  const store = await storeAdapter(db);
  try {
    // The claim carries the transition's feed event: one insert, so exactly one event per transition (docs/reference/webhooks.md).
    return await withNewEvent(
      db,
      event.org_id,
      _id,
      event.to as StagedStatus,
      view,
      async (fields) => {
        const claim: AuditEventDoc = { _id, ...event, ...fields };
        if (!(await store.claimTransition(claim))) throw new TransitionTaken();
        return claim;
      },
      // The claim's result is the view's (the transition's `set.result`): its event does not store it again.
      { ...source, resultInClaim: event.result_json !== undefined },
    );
  } catch (err) {
    if (!(err instanceof TransitionTaken)) throw err;
  }
  const existing = await events.findOne({ _id });
  if (!existing) throw new Error(`transition claim ${_id} vanished`);
  return existing;
}
