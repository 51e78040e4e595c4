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
//
// Reading a page is bounded on every store: an event's claim carries
// `feed_block` = `ORG:⌊sequence / 100⌋`, and a page reads the blocks from
// its cursor on, each by that one equality (FerretDB 1.24 pushes down only
// top-level equalities, served by a GIN index: docs/indexes.md), never the
// organisation's whole history sorted.
import type { Db } from 'mongodb';
import { eventTypeFor } from '../domain/events.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { EventSubject } from '../domain/events.js';
import { derivedId } from '../ids.js';
import {
  collections,
  type EventOperationView,
  type StagedOperationDoc,
  type StoredEvent,
  type StoredEventDoc,
} from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { operationView } from './staged-operation-view.js';
import { storeAdapter } from './store-adapter.js';

/** Events per feed block: a page reads whole blocks (at most MAX_BLOCKS_PER_PAGE). */
export const FEED_BLOCK = 100;
/** How far one page looks for events of the asked types before it answers with what it found (and a cursor past what it read). */
const MAX_BLOCKS_PER_PAGE = 20;

export const feedBlock = (orgId: string, sequence: number): string => `${orgId}:${Math.floor(sequence / FEED_BLOCK)}`;

/** The fields a claim stores for its event: the event and its feed block. */
export interface EventFields {
  event: StoredEventDoc;
  feed_block: string;
}

/** `resultInClaim`: the claim stores the operation's result as `result_json`; the event names it in its place. */
function storedEvent(event: StoredEvent, resultInClaim: boolean): StoredEventDoc {
  const { data, ...fields } = event;
  if (!resultInClaim) return { ...fields, data_json: JSON.stringify(data) };
  const inPlace = { staged_operation: { ...data.staged_operation, result: null } };
  return { ...fields, result_in_claim: true, data_json: JSON.stringify(inPlace) };
}

/**
 * The event a claim stores, in any of its forms. `resultJson`: the claim's
 * `result_json`, which an event marked `result_in_claim` takes its
 * operation's result from (the two are written by one insert).
 */
export function readEvent(doc: StoredEventDoc, resultJson?: string): StoredEvent {
  const { data_json: json, result_in_claim: inClaim, ...fields } = doc;
  if (json === undefined) return { ...fields, data: doc.data };
  const data = JSON.parse(json) as StoredEvent['data'];
  if (inClaim) {
    if (resultJson === undefined) throw new Error(`event ${doc.id} takes its result from a claim without one`);
    data.staged_operation.result = JSON.parse(resultJson) as StoredEvent['data']['staged_operation']['result'];
  }
  return { ...fields, data };
}

/** How old an event must be before the feed (and the webhooks) show it. */
export const EVENT_SETTLE_MS = 2_000;
/** A writer that took longer than this between reserving its sequence and inserting reserves a new one. */
const WRITE_WITHIN_MS = EVENT_SETTLE_MS / 2;
/** Reservations kept per organisation: all are read (one equality, at most KEEP + RETIRE_EVERY rows, no sort), the highest counts. */
export const KEEP_RESERVATIONS = 64;
/**
 * Every this many numbers the reserver of a multiple deletes the
 * organisation's reservations more than KEEP_RESERVATIONS below its own, in
 * one command: one delete per 16 events instead of one per event.
 */
export const RETIRE_EVERY = 16;
const RESERVE_ATTEMPTS = 100;

export function eventView(doc: StagedOperationDoc): EventOperationView {
  const { plan: _plan, preconditions: _preconditions, context: _context, ...view } = operationView(doc);
  return view;
}

/** The operation as a transition leaves it: for the event written with the claim. */
export function afterTransition(
  doc: StagedOperationDoc,
  to: StagedStatus,
  item: StagedOperationDoc['history'][number],
  set: Partial<StagedOperationDoc>,
): StagedOperationDoc {
  return { ...doc, ...set, status: to, history: [...doc.history, item] };
}

/**
 * A reserved sequence number: `reservedAt` is when reserving began (the
 * writer's clock for WRITE_WITHIN_MS and the event's `created_at`);
 * `retired` settles once the reservations it retires are deleted (every
 * RETIRE_EVERY-th number), which the writer awaits beside its insert.
 */
export interface Reservation {
  sequence: number;
  reservedAt: number;
  retired: Promise<void>;
}

/**
 * Reserve the organisation's next sequence number. A writer may start this
 * before its claim is ready (a staging reserves while it takes its plan
 * locks: docs/design/performance.md "Round trip"); a number never used is a gap.
 */
export async function reserveEvent(db: Db, orgId: string): Promise<Reservation> {
  const seqs = collections(db).eventSequences;
  const reservedAt = Date.now();
  const store = await storeAdapter(db);
  for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt += 1) {
    // On FerretDB 1.x the read and the insert are one SQL statement (docs/indexes.md "Writes in SQL").
    const next = await store.reserveSequence(orgId);
    if (next === 'taken') continue;
    // A reservation whose reserver died before its delete leaves its old ones to the next multiple's: the count stays bounded.
    const retired =
      next > KEEP_RESERVATIONS && next % RETIRE_EVERY === 0
        ? seqs.deleteMany({ org_id: orgId, sequence: { $lte: next - KEEP_RESERVATIONS } }).then(() => undefined)
        : Promise.resolve();
    // Awaited by the writer; never an unhandled rejection meanwhile (a writer that gives up the number does not wait).
    retired.catch(() => undefined);
    return { sequence: next, reservedAt, retired };
  }
  throw new Error(`event sequence of ${orgId}: too much contention`);
}

/** What a writer brings to its event beside the view. */
export interface EventSource {
  /** A reservation the writer started early (used when still fresh). */
  reserved?: Promise<Reservation> | undefined;
  /** The claim stores the view's result as `result_json`: the event takes it from there (storedEvent). */
  resultInClaim?: boolean | undefined;
}

/**
 * Insert a claim document carrying a new event: reserve a sequence (or take
 * the one reserved already), then insert at once, or (too slow since
 * reserving) reserve again. `insert` gets the event to store with the claim.
 */
export async function withNewEvent<T>(
  db: Db,
  orgId: string,
  claimId: string,
  to: EventSubject,
  view: EventOperationView,
  insert: (fields: EventFields) => Promise<T>,
  source: EventSource = {},
): Promise<T> {
  let early = source.reserved;
  for (;;) {
    const reservation = await (early ?? reserveEvent(db, orgId));
    early = undefined;
    if (!isFresh(reservation)) continue;
    const [result] = await Promise.all([
      insert(eventFields(orgId, claimId, to, view, reservation, source.resultInClaim ?? false)),
      reservation.retired,
    ]);
    return result;
  }
}

/** Whether a writer may still insert with this reservation (WRITE_WITHIN_MS since reserving began); else it reserves again. */
export function isFresh(reservation: Reservation): boolean {
  return Date.now() - reservation.reservedAt <= WRITE_WITHIN_MS;
}

/** The fields a claim stores for its transition's event, numbered by `reservation`. */
export function eventFields(
  orgId: string,
  claimId: string,
  to: EventSubject,
  view: EventOperationView,
  reservation: Reservation,
  resultInClaim = false,
): EventFields {
  const { sequence, reservedAt } = reservation;
  const event: StoredEvent = {
    id: derivedId('evt', claimId),
    type: eventTypeFor(to),
    created_at: new Date(reservedAt).toISOString(),
    sequence,
    data: { staged_operation: view },
  };
  return { event: storedEvent(event, resultInClaim), feed_block: feedBlock(orgId, sequence) };
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

export interface EventPage {
  events: StoredEvent[];
  /**
   * Every event up to this sequence that will ever exist has been read (and
   * those of the asked types returned): the next page starts after it. At
   * least the query's `after`.
   */
  through: number;
}

/**
 * The highest sequence below which every event that will ever exist is
 * stored: a reservation made before the settle cut-off is either inserted or
 * given up by now (withNewEvent), and so is every number reserved before it.
 * Reads the organisation's last reservations only (at most KEEP_RESERVATIONS + RETIRE_EVERY), on FerretDB 1.x as one SQL aggregate (the store port's `sequenceMarks`).
 */
async function finalThrough(db: Db, orgId: string, cutoff: string): Promise<{ final: number; highest: number }> {
  return (await storeAdapter(db)).sequenceMarks(orgId, cutoff);
}

/**
 * One page of the feed: settled events after `after`, by sequence, read block
 * by block (`feed_block`, one equality each). Stops at the first event not
 * yet settled, so nothing before it can be skipped.
 */
export async function listEvents(db: Db, q: EventPageQuery): Promise<EventPage> {
  const cutoff = new Date(q.now.getTime() - EVENT_SETTLE_MS).toISOString();
  const { final, highest } = await finalThrough(db, q.org_id, cutoff);
  const out: StoredEvent[] = [];
  let through = q.after;
  const first = Math.floor((q.after + 1) / FEED_BLOCK);
  for (
    let block = first;
    block <= Math.floor(highest / FEED_BLOCK) && block < first + MAX_BLOCKS_PER_PAGE;
    block += 1
  ) {
    const docs = await collections(db)
      .auditEvents.find(
        { org_id: q.org_id, feed_block: `${q.org_id}:${block}` },
        { projection: { event: 1, result_json: 1 } },
      )
      .toArray();
    const events = docs
      .flatMap((d) => (d.event !== undefined && d.event.sequence > q.after ? [readEvent(d.event, d.result_json)] : []))
      .sort((a, b) => a.sequence - b.sequence);
    for (const event of events) {
      if (event.created_at > cutoff) return { events: out, through };
      through = event.sequence;
      if (q.types.length > 0 && !q.types.includes(event.type)) continue;
      out.push(event);
      if (out.length >= q.limit) return { events: out, through };
    }
    // The whole block is read: its numbers without an event up to `final` never get one.
    through = Math.max(through, Math.min((block + 1) * FEED_BLOCK - 1, final));
  }
  return { events: out, through };
}

/** The highest sequence of the organisation below which every event is stored and settled (0: none), with the cut-off `now` gives. */
export async function latestSettledSequence(db: Db, orgId: string, now: Date): Promise<number> {
  return (await finalThrough(db, orgId, new Date(now.getTime() - EVENT_SETTLE_MS).toISOString())).final;
}

/** The highest sequence reserved in the organisation (0: none): a new webhook endpoint starts after it. */
export async function latestSequence(db: Db, orgId: string): Promise<number> {
  return (await finalThrough(db, orgId, '')).highest;
}

/** Marks, in event_sequences (an `_id` no organisation's reservation can have), that every stored event has its feed block. */
const FEED_BLOCKS_DONE = 'feed_block:backfilled';

/**
 * Give events stored before `feed_block` existed their block, once per
 * database: a worker starting on such a database reads the claims once and
 * sets the field by `_id`; then a marker keeps later starts to one `_id` read.
 * Several workers at once set the same values. Returns how many it set.
 */
export async function backfillFeedBlocks(db: Db): Promise<number> {
  const { auditEvents, eventSequences } = collections(db);
  if (await eventSequences.findOne({ _id: FEED_BLOCKS_DONE }, { projection: { _id: 1 } })) return 0;
  let set = 0;
  for await (const doc of auditEvents.find(
    { 'event.sequence': { $exists: true }, feed_block: { $exists: false } },
    { projection: { org_id: 1, event: 1 } },
  )) {
    if (!doc.event) continue;
    await auditEvents.updateOne({ _id: doc._id }, { $set: { feed_block: feedBlock(doc.org_id, doc.event.sequence) } });
    set += 1;
  }
  try {
    await eventSequences.insertOne({ _id: FEED_BLOCKS_DONE, org_id: '', sequence: 0, at: new Date().toISOString() });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return set;
}

/**
 * Retention (EVENT_RETENTION_DAYS): events created before `before` are
 * removed from their claims. The claim itself stays: it still settles the
 * transition race of its operation.
 */
export async function sweepEvents(db: Db, before: Date): Promise<number> {
  const r = await collections(db).auditEvents.updateMany(
    { 'event.created_at': { $lt: before.toISOString() } },
    { $unset: { event: '', feed_block: '' } },
  );
  return r.modifiedCount;
}
