// The event feed's page read and its retention on the real store
// (docs/reference/webhooks.md "The feed", "Retention"): pages by sequence
// across feed blocks, never past an event not yet settled, a type filter
// that reads on past other types, numbers without an event skipped once
// final; events past EVENT_RETENTION_DAYS leave the feed (their claims stay),
// and so do old delivery attempts.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { claimTransition, recordStaged } from '../../shared/storage/audit-events.js';
import { collections, type StagedOperationDoc } from '../../shared/storage/collections.js';
import {
  afterTransition,
  backfillFeedBlocks,
  eventView,
  FEED_BLOCK,
  KEEP_RESERVATIONS,
  listEvents,
  RETIRE_EVERY,
  type EventPage,
} from '../../shared/storage/events.js';
import { recordDelivery } from '../../shared/storage/webhook-endpoints.js';
import { sweepExpired } from '../../worker/maintenance.js';
import { stack } from '../helpers/stack.js';

function operation(orgId: string, n: number): StagedOperationDoc {
  const at = new Date().toISOString();
  return {
    _id: `stg_${orgId}_${n}`,
    org_id: orgId,
    kind: 'ledger_reversal',
    status: 'staged',
    created_by: 'alice',
    created_at: at,
    expires_at: '2099-01-01T00:00:00.000Z',
    request_id: 'req',
    idempotency_key: null,
    scope_key: `reverse:${n}`,
    input: {},
    plan: { ledger_entry_id: `le_${n}`, actions: [] },
    plan_hash: 'hash',
    preconditions: [],
    warnings: [],
    history: [{ at, actor: 'alice', from: null, to: 'staged', note: null }],
  } as unknown as StagedOperationDoc;
}

/** An org with `n` staging events, sequences 1..n. */
async function orgWithEvents(n: number): Promise<string> {
  const { db } = await stack();
  const orgId = `org_feed_${randomBytes(4).toString('hex')}`;
  for (let i = 1; i <= n; i += 1) await recordStaged(db, operation(orgId, i));
  return orgId;
}

const later = (): Date => new Date(Date.now() + 60_000);
const seqs = (page: EventPage): number[] => page.events.map((e) => e.sequence);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('store: the event feed reads bounded pages by feed block', function () {
  this.timeout(120_000);

  it(`keeps between ${KEEP_RESERVATIONS} and ${KEEP_RESERVATIONS + RETIRE_EVERY} sequence reservations per organisation, the highest among them, whatever the count of events`, async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(3 * KEEP_RESERVATIONS + 5);
    const kept = (
      await collections(db)
        .eventSequences.find({ org_id: orgId }, { projection: { sequence: 1 } })
        .toArray()
    )
      .map((r) => r.sequence)
      .sort((a, b) => a - b);
    const highest = 3 * KEEP_RESERVATIONS + 5;
    expect(kept[kept.length - 1]).to.equal(highest);
    expect(kept.length).to.be.within(KEEP_RESERVATIONS, KEEP_RESERVATIONS + RETIRE_EVERY);
    // Retired at the last multiple of RETIRE_EVERY: everything KEEP_RESERVATIONS below it is gone, nothing above.
    const lastRetire = Math.floor(highest / RETIRE_EVERY) * RETIRE_EVERY;
    expect(kept).to.deep.equal(range(lastRetire - KEEP_RESERVATIONS + 1, highest));
  });

  it(`pages through ${2 * FEED_BLOCK + 50} events by sequence, across blocks, each page ending where the next begins`, async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(2 * FEED_BLOCK + 50);
    const now = later();
    const pages: number[][] = [];
    let after = 0;
    for (;;) {
      const page = await listEvents(db, { org_id: orgId, after, types: [], limit: 100, now });
      if (page.events.length === 0) {
        expect(page.through).to.equal(after);
        break;
      }
      expect(page.through).to.equal(page.events[page.events.length - 1]!.sequence);
      pages.push(seqs(page));
      after = page.through;
    }
    expect(pages).to.deep.equal([range(1, 100), range(101, 200), range(201, 250)]);
    // Each event's claim names its block.
    const claim = await collections(db).auditEvents.findOne({ org_id: orgId, 'event.sequence': 150 });
    expect(claim?.feed_block).to.equal(`${orgId}:1`);
  });

  it("stores an event's operation as JSON text and gives it back as stored; an event stored before, with its operation as a document, reads the same", async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(2);
    const claims = collections(db).auditEvents;
    const stored = await claims.findOne({ org_id: orgId, 'event.sequence': 1 });
    expect(stored?.event?.data, 'no document copy').to.equal(undefined);
    const data = JSON.parse(stored!.event!.data_json!) as {
      staged_operation: { staged_operation_id: string; status: string };
    };
    expect([data.staged_operation.staged_operation_id, data.staged_operation.status]).to.deep.equal([
      `stg_${orgId}_1`,
      'staged',
    ]);
    // Event 2 as the code before this form wrote it.
    const second = await claims.findOne({ org_id: orgId, 'event.sequence': 2 });
    const { data_json: json, ...fields } = second!.event!;
    await claims.updateOne({ _id: second!._id }, { $set: { event: { ...fields, data: JSON.parse(json!) as never } } });
    const page = await listEvents(db, { org_id: orgId, after: 0, types: [], limit: 10, now: later() });
    expect(
      page.events.map((e): unknown[] => [
        e.sequence,
        e.data.staged_operation.staged_operation_id,
        e.data.staged_operation.status,
      ]),
    ).to.deep.equal([
      [1, `stg_${orgId}_1`, 'staged'],
      [2, `stg_${orgId}_2`, 'staged'],
    ]);
    expect(page.events.every((e) => !('data_json' in e))).to.equal(true);
  });

  it("stores an apply's result once, in its claim: the event names it there, and the feed gives the operation back whole", async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(1);
    const op = { ...operation(orgId, 1), status: 'applying' } as StagedOperationDoc;
    const at = new Date().toISOString();
    const changes = ['lnk_a', 'lnk_b', 'lnk_c'].map((id) => ({ action: 'insert', collection: 'bank_links', id }));
    const result = { status: 'applied', at, by: 'bob', changes } as NonNullable<StagedOperationDoc['result']>;
    const item = { at, actor: 'bob', from: 'applying', to: 'applied', note: null, request_id: 'req' } as const;
    const view = eventView(afterTransition(op, 'applied', item, { result }));
    const claim = await claimTransition(
      db,
      {
        ...{ org_id: orgId, staged_operation_id: op._id, at, actor: 'bob', request_id: 'req', claim_id: 'job_1' },
        ...{ from: 'applying', to: 'applied', note: null, result_json: JSON.stringify(result) },
      },
      view,
    );
    expect(claim.claim_id).to.equal('job_1');
    const stored = await collections(db).auditEvents.findOne({ _id: claim._id });
    expect(stored?.result_json, 'the result, once').to.equal(JSON.stringify(result));
    expect(stored?.event?.result_in_claim).to.equal(true);
    expect(stored?.event?.data_json).to.not.include('lnk_a');
    const page = await listEvents(db, { org_id: orgId, after: 1, types: [], limit: 10, now: later() });
    expect(page.events.map((e) => e.type)).to.deep.equal(['staged_operation.applied']);
    // What the event held when it stored the result itself, key for key.
    expect(JSON.stringify(page.events[0]!.data)).to.equal(JSON.stringify({ staged_operation: view }));
  });

  it('shows nothing younger than the settle time, and moves its cursor no further', async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(3);
    const page = await listEvents(db, {
      org_id: orgId,
      after: 0,
      types: [],
      limit: 100,
      now: new Date(Date.now() - 60_000),
    });
    expect([seqs(page), page.through]).to.deep.equal([[], 0]);
  });

  it('with a type filter, reads on past events of other types and answers a cursor past them', async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(FEED_BLOCK + 10);
    const page = await listEvents(db, {
      org_id: orgId,
      after: 0,
      types: ['staged_operation.approved'],
      limit: 100,
      now: later(),
    });
    expect([seqs(page), page.through]).to.deep.equal([[], FEED_BLOCK + 10]);
    const staged = await listEvents(db, {
      org_id: orgId,
      after: 5,
      types: ['staged_operation.staged'],
      limit: 3,
      now: later(),
    });
    expect([seqs(staged), staged.through]).to.deep.equal([[6, 7, 8], 8]);
  });

  it('skips a sequence number that was reserved and never used (a gap), once a later event has settled', async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(2);
    // Number 3 reserved by a writer that never inserted its event; then 4 written.
    await collections(db).eventSequences.insertOne({
      _id: `${orgId}:3`,
      org_id: orgId,
      sequence: 3,
      at: new Date().toISOString(),
    });
    await recordStaged(db, operation(orgId, 4));
    const page = await listEvents(db, { org_id: orgId, after: 2, types: [], limit: 100, now: later() });
    expect([seqs(page), page.through]).to.deep.equal([[4], 4]);
  });
});

describe('store: events stored before feed blocks existed', function () {
  this.timeout(120_000);

  it('get their block from the worker start-up backfill, once per database, and then show in the feed', async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(3);
    // As an older version stored them: no feed_block.
    await collections(db).auditEvents.updateMany({ org_id: orgId }, { $unset: { feed_block: '' } });
    const now = later();
    expect(seqs(await listEvents(db, { org_id: orgId, after: 0, types: [], limit: 100, now }))).to.deep.equal([]);
    await collections(db).eventSequences.deleteOne({ _id: 'feed_block:backfilled' });
    expect(await backfillFeedBlocks(db)).to.be.at.least(3);
    expect(seqs(await listEvents(db, { org_id: orgId, after: 0, types: [], limit: 100, now }))).to.deep.equal([
      1, 2, 3,
    ]);
    expect(await backfillFeedBlocks(db), 'the second start').to.equal(0);
  });
});

describe('store: events and delivery attempts are kept EVENT_RETENTION_DAYS', function () {
  this.timeout(120_000);

  it('the maintenance sweep removes events older than the retention from the feed (their claims stay) and older delivery attempts; newer ones stay', async () => {
    const { db } = await stack();
    const orgId = await orgWithEvents(4);
    const day = 86_400_000;
    const ago = (days: number): string => new Date(Date.now() - days * day).toISOString();
    // Events 1 and 2 are 31 and 40 days old, 3 is 29 days old, 4 is new.
    for (const [sequence, days] of [
      [1, 31],
      [2, 40],
      [3, 29],
    ] as const) {
      await collections(db).auditEvents.updateOne(
        { org_id: orgId, 'event.sequence': sequence },
        { $set: { 'event.created_at': ago(days) } },
      );
    }
    const attempt = {
      org_id: orgId,
      endpoint_id: 'whe_x',
      event_id: 'evt_x',
      event_type: 'staged_operation.staged',
      sequence: 1,
      attempt: 1,
      outcome: 'delivered' as const,
      status_code: 204,
      error: null,
      duration_ms: 1,
      next_retry_at: null,
    };
    const kept = ago(29);
    await recordDelivery(db, { ...attempt, at: ago(31) });
    await recordDelivery(db, { ...attempt, at: kept });

    const swept = await sweepExpired(db, new Date(), { eventRetentionDays: 30 });
    expect(swept.events_removed).to.be.at.least(2);
    const page = await listEvents(db, { org_id: orgId, after: 0, types: [], limit: 100, now: later() });
    expect([seqs(page), page.through]).to.deep.equal([[3, 4], 4]);
    const claims = await collections(db).auditEvents.find({ org_id: orgId }).toArray();
    expect(claims, 'the claims stay').to.have.length(4);
    expect(claims.filter((c) => c.event === undefined && c.feed_block === undefined)).to.have.length(2);
    expect((await collections(db).webhookDeliveries.find({ org_id: orgId }).toArray()).map((d) => d.at)).to.deep.equal([
      kept,
    ]);
  });
});
