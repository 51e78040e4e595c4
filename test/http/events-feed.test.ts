// The event feed over HTTP (docs/reference/webhooks.md): every transition of a
// staged operation — of every kind, and ending stale or failed too — creates
// exactly one event, and the feed's `type` filter pages through one type.
import { expect } from 'chai';
import type { ReconcileData, ReversalData, StageData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { eventsOf, feed, type FeedEvent } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { duplicatePair } from '../helpers/inbox.js';
import { waitUntil } from '../helpers/receiver.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, show } from '../helpers/staged.js';
import { conflictAfterFirstWrite, RECONCILE, reconcileScenario } from '../faults/fault-scenario.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const LIFECYCLE = [
  'staged_operation.staged',
  'staged_operation.approved',
  'staged_operation.applying',
  'staged_operation.applied',
];

/** A token of the org that reads its feed and every one of its staged operations (a reviewer's scope). */
const feedReader = async (orgId: string): Promise<string> =>
  (await stack()).token(orgId, ['events:read', 'staged:read', 'staged:approve'], 'ops');

/**
 * The operation's events, once the feed shows one per transition of its
 * history: exactly those, in the history's order, each with the status that
 * transition reached, and in sequence order; the last with the operation's
 * result.
 */
async function expectOneEventPerTransition(token: string, id: string): Promise<string[]> {
  const op = (await show(token, id)).body.data;
  const history = op.history.map((h) => `staged_operation.${h.to}`);
  const events = await eventsOf(token, id, history.length);
  expect(
    events.map((e) => e.type),
    id,
  ).to.deep.equal(history);
  expect(
    events.map((e) => `staged_operation.${e.data.staged_operation.status}`),
    id,
  ).to.deep.equal(history);
  for (let i = 1; i < events.length; i += 1) expect(events[i]!.sequence).to.be.greaterThan(events[i - 1]!.sequence);
  // The last transition's event carries the operation's result whole (an apply's is stored once, in its claim).
  expect(events[events.length - 1]!.data.staged_operation.result, id).to.deep.equal(op.result);
  return history;
}

/** Approve (another actor) and apply, waiting for the apply's end. */
async function approveAndApply(approver: string, id: string): Promise<void> {
  expect((await approve(approver, id)).status).to.equal(200);
  const applied = await apply(approver, id, { prefer: 'wait=30' });
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  expect(applied.body.data.status).to.equal('applied');
}

describe('the event feed: one event per transition, of every end and kind', function () {
  this.timeout(90_000);

  it('an apply that finds the books changed since approval ends stale: one staged_operation.stale event, after staged and approved', async () => {
    const sc = await reconcileScenario();
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(sc.who.bob, id)).status).to.equal(200);
    // A re-import changes one of the transactions the reconciliation relies on.
    sc.books.file.bank_transactions.find((t) => t.id === sc.txns[0])!.remittance_info = 'changed';
    await (await stack()).load(sc.books.file);
    const res = await apply(sc.who.bob, id, { prefer: 'wait=30' });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('stale_plan');

    const history = await expectOneEventPerTransition(await feedReader(sc.books.orgId), id);
    expect(history.filter((t) => t === 'staged_operation.stale')).to.have.length(1);
    expect(history[history.length - 1]).to.equal('staged_operation.stale');
    expect(history.slice(0, 2)).to.deep.equal(['staged_operation.staged', 'staged_operation.approved']);
  });

  it('an apply that meets a conflict after its first write ends failed: one staged_operation.failed event, after applying', async function () {
    this.timeout(150_000);
    const { sc, id, applied } = await conflictAfterFirstWrite();
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('apply_failed');

    const history = await expectOneEventPerTransition(await feedReader(sc.books.orgId), id);
    expect(history).to.deep.equal([
      'staged_operation.staged',
      'staged_operation.approved',
      'staged_operation.applying',
      'staged_operation.failed',
    ]);
  });

  it('a statement import staged → approved → applying → applied has its four events, once each', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const csv = 'date,amount,name\n2026-11-03,12.50,Alpha\n2026-11-04,-3.00,Beta\n';
    const staged = await call<StageData<unknown>>(
      'POST',
      `/api/v1/cli/bank-accounts/${account}/statements/import/stage?date_column=date&amount_column=amount&counterparty_column=name`,
      { token: who.alice, rawBody: csv },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    await approveAndApply(who.bob, id);
    expect((await show(who.bob, id)).body.data.kind).to.equal('statement_import');
    expect(await expectOneEventPerTransition(await feedReader(books.orgId), id)).to.deep.equal(LIFECYCLE);
  });

  it('an inbox duplicate resolution staged → approved → applying → applied has its four events, once each', async () => {
    const s = await stack();
    const books = new Books();
    const { a, group } = duplicatePair(books);
    await s.load(books.file);
    const who = await actors(books.orgId);
    const stager = await s.token(books.orgId, ['inbox:stage', 'staged:read'], 'alice');
    const staged = await call<StageData<unknown>>(
      'POST',
      `/api/v1/cli/bookkeeping/inbox/duplicates/${group}/resolve/stage`,
      {
        token: stager,
        body: { resolution: 'archive_duplicates', keep_document_id: a },
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    await approveAndApply(who.bob, id);
    expect((await show(who.bob, id)).body.data.kind).to.equal('inbox_duplicates_resolve');
    expect(await expectOneEventPerTransition(await feedReader(books.orgId), id)).to.deep.equal(LIFECYCLE);
  });

  it('a journal entry and a bank match staged → approved → applying → applied have their four events, once each, with their summary', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const invoice = books.invoice(4_000);
    const payment = books.txn(account, 4_000);
    const fee = books.txn(account, -350, { counterparty_id: books.cp('bank') });
    await s.load(books.file);
    const who = await actors(books.orgId);
    const entry = await call<StageData<unknown>>('POST', '/api/v1/cli/ledger/entries/stage', {
      token: who.alice,
      body: bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee }),
    });
    const match = await call<StageData<unknown>>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: [{ bank_transaction_id: payment, ledger_entry_id: invoice, amount_minor: 4_000 }],
      },
    });
    const reader = await feedReader(books.orgId);
    for (const [staged, kind] of [
      [entry, 'journal_entry'],
      [match, 'bank_match'],
    ] as const) {
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      const id = staged.body.data.staged_operation_id;
      await approveAndApply(who.bob, id);
      const shown = (await show(who.bob, id)).body.data;
      expect(shown.kind).to.equal(kind);
      expect(await expectOneEventPerTransition(reader, id)).to.deep.equal(LIFECYCLE);
      for (const e of await eventsOf(reader, id, LIFECYCLE.length))
        expect(e.data.staged_operation, e.type).to.deep.include({ kind, summary: shown.summary });
    }
  });
});

describe('GET /events?type=', function () {
  this.timeout(60_000);

  it('answers only events of that type, in sequence order; paging one at a time walks each of them once', async () => {
    const s = await stack();
    const books = new Books();
    const entries = [1_000, 2_000, 3_000, 4_000].map((amount) => books.invoice(amount));
    await s.load(books.file);
    const who = await actors(books.orgId);
    // Staged, approved, staged, approved, staged, approved, staged: the filter reads past the other type.
    const ids: string[] = [];
    for (const [i, entry] of entries.entries()) {
      const staged = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
        token: who.alice,
        body: { reversal_date: '2026-03-01' },
      });
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      ids.push(staged.body.data.staged_operation_id);
      if (i < 3) expect((await approve(who.bob, ids[i]!)).status).to.equal(200);
    }
    const token = await feedReader(books.orgId);
    let all: FeedEvent[] = [];
    await waitUntil('the seven events settled', async () => (all = await feed(token)).length >= 7);

    const approved = await call<{ items: FeedEvent[] }>(
      'GET',
      '/api/v1/cli/events?type=staged_operation.approved&limit=100',
      { token },
    );
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    const items = approved.body.data.items;
    expect(items.map((e) => e.type)).to.deep.equal([
      'staged_operation.approved',
      'staged_operation.approved',
      'staged_operation.approved',
    ]);
    expect(items.map((e) => e.data.staged_operation.staged_operation_id)).to.deep.equal(ids.slice(0, 3));
    const sequences = items.map((e) => e.sequence);
    expect(sequences).to.deep.equal([...sequences].sort((x, y) => x - y));
    expect(new Set(sequences).size).to.equal(3);
    expect(items.map((e) => e.id)).to.deep.equal(
      all.filter((e) => e.type === 'staged_operation.approved').map((e) => e.id),
    );

    // One at a time, each page's next_cursor as `after`, to the empty page: the same three, once each.
    const walked = await feed(token, 'staged_operation.approved', 1);
    expect(walked.map((e) => e.id)).to.deep.equal(items.map((e) => e.id));
  });
});
