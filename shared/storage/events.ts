// The event outbox and feed (docs/reference/webhooks.md). An event is not a document
// of its own: it is a field of the transition's claim (the audit event whose
// unique `_id` settles the transition race, audit-events.ts), so it is
// written by the same single insert. No transition exists without its event,
// and none has two, whatever crashes in between.
//
// `sequence` comes from a unique insert of `ORG:N` (event_sequences): the
// next number after the highest reserved, retried on a duplicate key, since
// FerretDB's `$inc` is not atomic. A reserved number whose claim is never
// inserted (the job lost the race, or died) is a gap; no number is used
// twice. The feed shows only events older than EVENT_SETTLE_MS, and a writer
// inserts within half of that after reserving or reserves again: so when
// the feed shows N, every event below N that will ever exist is already
// stored, and a reader paging by sequence skips nothing.
import type { Db } from 'mongodb';
import { eventTypeFor, type EventType } from '../domain/events.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import { derivedId } from '../ids.js';
import { collections, type AuditEventDoc, type StagedOperationDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import type { StagedOperationDetail } from '../contract/staged-operation.js';
import { stagedOperationDetail } from './staged-operation-view.js';

/** The staged operation as an event carries it: the view GET answers, without `plan`, `preconditions` and `context` (all can be large). */
export type EventOperationView = Omit<StagedOperationDetail, 'plan' | 'preconditions' | 'context'>;

export interface StoredEvent {
  id: string;
  type: EventType;
  created_at: string;
  sequence: number;
  data: { staged_operation: EventOperationView };
}

/** How old an event must be before the feed (and the webhooks) show it. */
export const EVENT_SETTLE_MS = 2_000;
/** A writer that took longer than this between reserving its sequence and inserting reserves a new one. */
const WRITE_WITHIN_MS = EVENT_SETTLE_MS / 2;
/** Reservations kept per organisation: only the highest is ever read. */
const KEEP_RESERVATIONS = 64;
const RESERVE_ATTEMPTS = 100;

export function eventView(doc: StagedOperationDoc): EventOperationView {
  const { plan: _plan, preconditions: _preconditions, context: _context, ...view } = stagedOperationDetail(doc);
  return view;
}

/** The operation as a transition leaves it: for the event written with the claim. */
export function afterTransition(doc: StagedOperationDoc, to: StagedStatus, item: StagedOperationDoc['history'][number], set: Partial<StagedOperationDoc>): StagedOperationDoc {
  return { ...doc, ...set, status: to, history: [...doc.history, item] };
}

async function reserveSequence(db: Db, orgId: string): Promise<number> {
  const seqs = collections(db).eventSequences;
  for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt += 1) {
    const last = await seqs.find({ org_id: orgId }).sort({ sequence: -1 }).limit(1).next();
    const next = (last?.sequence ?? 0) + 1;
    try {
      await seqs.insertOne({ _id: `${orgId}:${next}`, org_id: orgId, sequence: next, at: new Date().toISOString() });
    } catch (err) {
      if (isUniqueViolation(err)) continue;
      throw err;
    }
    if (next > KEEP_RESERVATIONS) await seqs.deleteOne({ _id: `${orgId}:${next - KEEP_RESERVATIONS}` });
    return next;
  }
  throw new Error(`event sequence of ${orgId}: too much contention`);
}

/**
 * Insert a claim document carrying a new event: reserve a sequence, then
 * insert at once, or (too slow since reserving) reserve again. `insert`
 * gets the event to store with the claim.
 */
export async function withNewEvent<T>(
  db: Db, orgId: string, claimId: string, to: StagedStatus, view: EventOperationView, insert: (event: StoredEvent) => Promise<T>,
): Promise<T> {
  for (;;) {
    const reservedAt = Date.now();
    const sequence = await reserveSequence(db, orgId);
    if (Date.now() - reservedAt > WRITE_WITHIN_MS) continue;
    const event: StoredEvent = {
      id: derivedId('evt', claimId), type: eventTypeFor(to), created_at: new Date(reservedAt).toISOString(), sequence, data: { staged_operation: view },
    };
    return insert(event);
  }
}

export interface EventPageQuery {
  org_id: string;
  /** Events with a greater sequence. */
  after: number;
  /** Empty: every type. */
  types: readonly string[];
  limit: number;
  now: Date;
}

/** One page of the feed: settled events after `after`, by sequence. */
export async function listEvents(db: Db, q: EventPageQuery): Promise<StoredEvent[]> {
  const cutoff = new Date(q.now.getTime() - EVENT_SETTLE_MS).toISOString();
  const filter: Record<string, unknown> = { org_id: q.org_id, 'event.sequence': { $gt: q.after }, 'event.created_at': { $lte: cutoff } };
  if (q.types.length > 0) filter['event.type'] = { $in: [...q.types] };
  const docs = await collections(db).auditEvents.find(filter, { projection: { event: 1 } }).sort({ 'event.sequence': 1 }).limit(q.limit).toArray();
  return docs.map((d: Pick<AuditEventDoc, 'event'>) => d.event!).filter(Boolean);
}

/** The highest sequence of a settled event in the organisation (0: none), with the cut-off `now` gives. */
export async function latestSettledSequence(db: Db, orgId: string, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_SETTLE_MS).toISOString();
  const docs = await collections(db).auditEvents.find({ org_id: orgId, 'event.created_at': { $lte: cutoff } }, { projection: { event: 1 } })
    .sort({ 'event.sequence': -1 }).limit(1).toArray();
  return docs[0]?.event?.sequence ?? 0;
}

/** The highest sequence reserved in the organisation (0: none): a new webhook endpoint starts after it. */
export async function latestSequence(db: Db, orgId: string): Promise<number> {
  const last = await collections(db).eventSequences.find({ org_id: orgId }).sort({ sequence: -1 }).limit(1).next();
  return last?.sequence ?? 0;
}

/**
 * Retention (EVENT_RETENTION_DAYS): events created before `before` are
 * removed from their claims. The claim itself stays: it still settles the
 * transition race of its operation.
 */
export async function sweepEvents(db: Db, before: Date): Promise<number> {
  const r = await collections(db).auditEvents.updateMany({ 'event.created_at': { $lt: before.toISOString() } }, { $unset: { event: '' } });
  return r.modifiedCount;
}
