import { createHmac } from 'node:crypto';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { startApi } from '../../api/runtime.js';
import { createLogger } from '../../shared/logger.js';
import type { ReconcileData, ReversalData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import {
  bodies,
  documentedVerify,
  endpoint,
  ENDPOINTS,
  feed,
  type FeedEvent as Event,
  type Verify,
} from '../helpers/events.js';
import { receiver, waitUntil, type Receiver } from '../helpers/receiver.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, reject, show } from '../helpers/staged.js';
import { RECONCILE, reconcileScenario } from '../faults/fault-scenario.js';
import { createRedis } from '../../shared/queue/connection.js';
import { MAINTENANCE_QUEUE } from '../../worker/maintenance.js';

/** The verification docs/reference/webhooks.md shows a receiver, run as written there (test/helpers/events.ts). */
let verify: Verify;

async function runLifecycle(sc: Awaited<ReturnType<typeof reconcileScenario>>): Promise<string> {
  const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(sc.who.bob, id)).status).to.equal(200);
  const applied = await apply(sc.who.bob, id, { prefer: 'wait=30' });
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  return id;
}

describe('events and webhooks', () => {
  before(async () => {
    verify = await documentedVerify();
  });
  let receivers: Receiver[] = [];
  const newReceiver = async (): Promise<Receiver> => {
    const r = await receiver();
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    receivers = [];
  });

  it('stage → approve → apply delivers staged, approved, applying, applied in order, each signed with the endpoint secret', async () => {
    const r = await newReceiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url);
    const id = await runLifecycle(sc);
    await waitUntil('four deliveries', () => r.received.length >= 4);
    const events = bodies(r);
    expect(events.map((e) => e.type)).to.deep.equal([
      'staged_operation.staged',
      'staged_operation.approved',
      'staged_operation.applying',
      'staged_operation.applied',
    ]);
    expect(events.map((e) => e.data.staged_operation.status)).to.deep.equal([
      'staged',
      'approved',
      'applying',
      'applied',
    ]);
    for (const [i, e] of events.entries()) {
      const got = r.received[i]!;
      expect(verify(ep.secret, got.body, String(got.headers['bookstage-signature']))).to.equal(true);
      expect(got.headers['bookstage-event-id']).to.equal(e.id);
      expect(got.headers['content-type']).to.equal('application/json');
      expect(e.data.staged_operation.staged_operation_id).to.equal(id);
      expect(e.data.staged_operation).to.not.have.property('plan');
      expect(e.data.staged_operation).to.have.property('summary');
      if (i > 0) expect(e.sequence).to.be.greaterThan(events[i - 1]!.sequence);
    }
    // The feed holds the same events, in the same order.
    expect((await feed(ep.token)).map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
  });

  it('a receiver answering 500 twice receives the event on the third attempt; the deliveries list shows each attempt', async () => {
    const r = await newReceiver();
    r.answer = (n) => (n <= 2 ? 500 : 204);
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url, ['staged_operation.staged']);
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
    expect(staged.status).to.equal(201);
    await waitUntil('three attempts', () => r.received.length >= 3);
    const ids = bodies(r).map((e) => e.id);
    expect(new Set(ids).size).to.equal(1);
    await waitUntil(
      'the delivered attempt recorded',
      async () =>
        (await call<{ items: unknown[] }>('GET', `${ENDPOINTS}/${ep.id}/deliveries`, { token: ep.token })).body.data
          .items.length >= 3,
    );
    const list = await call<{
      items: Array<{
        attempt: number;
        outcome: string;
        status_code: number | null;
        next_retry_at: string | null;
        event_id: string;
      }>;
    }>('GET', `${ENDPOINTS}/${ep.id}/deliveries`, { token: ep.token });
    expect(
      list.body.data.items.map((d) => [d.attempt, d.outcome, d.status_code, d.next_retry_at !== null, d.event_id]),
    ).to.deep.equal([
      [3, 'delivered', 204, false, ids[0]],
      [2, 'failed', 500, true, ids[0]],
      [1, 'failed', 500, true, ids[0]],
    ]);
  });

  it('a redirect is not followed: the receiver it names gets nothing, the attempt is recorded failed with the 302 and retried', async () => {
    const elsewhere = await newReceiver();
    const r = await newReceiver();
    r.answer = () => ({ status: 302, headers: { location: elsewhere.url } });
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url, ['staged_operation.staged']);
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
    expect(staged.status).to.equal(201);
    type Attempt = { attempt: number; outcome: string; status_code: number | null; next_retry_at: string | null };
    let attempts: Attempt[] = [];
    await waitUntil(
      'two recorded attempts',
      async () =>
        (attempts = (await call<{ items: Attempt[] }>('GET', `${ENDPOINTS}/${ep.id}/deliveries`, { token: ep.token }))
          .body.data.items).length >= 2,
    );
    expect(r.received.length).to.be.at.least(2);
    expect(new Set(bodies(r).map((e) => e.id)).size).to.equal(1);
    expect(elsewhere.received).to.have.length(0);
    for (const a of attempts)
      expect([a.outcome, a.status_code, a.next_retry_at !== null], `attempt ${a.attempt}`).to.deep.equal([
        'failed',
        302,
        true,
      ]);
    // No further attempts once the test is over.
    expect((await call('DELETE', `${ENDPOINTS}/${ep.id}`, { token: ep.token })).status).to.equal(200);
  });

  it('a receiver down for a while receives everything afterwards, in sequence order', async () => {
    const r = await newReceiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url);
    await r.down();
    await runLifecycle(sc);
    await waitUntil(
      'two failed attempts',
      async () =>
        (await call<{ items: unknown[] }>('GET', `${ENDPOINTS}/${ep.id}/deliveries`, { token: ep.token })).body.data
          .items.length >= 2,
    );
    expect(r.received).to.have.length(0);
    await r.up();
    await waitUntil('four deliveries', () => r.received.length >= 4);
    const events = bodies(r);
    expect(events.map((e) => e.type)).to.deep.equal([
      'staged_operation.staged',
      'staged_operation.approved',
      'staged_operation.applying',
      'staged_operation.applied',
    ]);
    expect(events.map((e) => e.sequence)).to.deep.equal([...events.map((e) => e.sequence)].sort((a, b) => a - b));
  });

  it('SIGKILL of the worker between a transition and its delivery loses nothing: the event is in the feed and delivered after the restart', async () => {
    const s = await stack();
    const r = await newReceiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url);
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
    expect(staged.status).to.equal(201);
    // Events show (and go out) 2 s after their transition: the worker dies before.
    await s.killWorker();
    try {
      expect(r.received).to.have.length(0);
      let events: Event[] = [];
      await waitUntil('the event in the feed', async () => (events = await feed(ep.token)).length === 1);
      expect(events[0]!.type).to.equal('staged_operation.staged');
      expect(r.received).to.have.length(0);
    } finally {
      await s.startWorker();
    }
    await waitUntil('the delivery after the restart', () => r.received.length >= 1);
    expect(bodies(r)[0]!.data.staged_operation.staged_operation_id).to.equal(staged.body.data.staged_operation_id);
  });

  it('every transition of a run of 100 mixed operations (reconcile, repair, reversal; approved, applied, rejected, expired, left staged) has exactly one event in the feed, in sequence order', async function () {
    this.timeout(600_000);
    const s = await stack();
    const books = new Books();
    // One org; every operation on records of its own, so none waits for another's locks.
    const requests = Array.from({ length: 100 }, (_, i): { path: string; body: unknown } => {
      if (i % 3 === 0)
        return {
          path: `/api/v1/cli/ledger/entries/${books.invoice(1_000)}/reverse/stage`,
          body: { reversal_date: '2026-03-01' },
        };
      const account = books.account();
      if (i % 3 === 1) {
        const { txn } = books.linkedTxn(account, 1_000, {
          booking_date: '2026-02-02',
          counterparty_id: books.cp(`c${i}`),
        });
        return {
          path: RECONCILE,
          body: {
            bank_account_id: account,
            statement: { end_date: '2026-02-28', closing_balance_minor: 1_000, currency: 'EUR' },
            transaction_ids: [txn],
          },
        };
      }
      // A payment linked to the newer of two open invoices: the repair moves it to the older one.
      const cp = books.cp(`r${i}`);
      books.invoice(1_000, { entry_date: '2026-01-05', counterparty_id: cp });
      const newer = books.invoice(1_000, { entry_date: '2026-01-20', counterparty_id: cp });
      books.link(books.txn(account, 1_000, { booking_date: '2026-02-03', counterparty_id: cp }), newer, 1_000);
      return {
        path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
        body: { bank_account_id: account, counterparty_id: cp, as_of: '2026-02-28' },
      };
    });
    await s.load(books.file);
    const who = await actors(books.orgId);
    const feedToken = await s.token(books.orgId, ['events:read'], 'ops');
    const ids: string[] = [];
    for (let i = 0; i < requests.length; i += 10) {
      const answers = await Promise.all(
        requests.slice(i, i + 10).map((r) => call<ReversalData>('POST', r.path, { token: who.alice, body: r.body })),
      );
      for (const a of answers) {
        expect(a.status, JSON.stringify(a.body)).to.equal(201);
        ids.push(a.body.data.staged_operation_id);
      }
    }
    // By i % 5: approved and applied, approved, rejected, expired, left staged.
    for (let i = 0; i < ids.length; i += 10) {
      await Promise.all(
        ids.slice(i, i + 10).map(async (id, j) => {
          const k = (i + j) % 5;
          if (k === 0 || k === 1) expect((await approve(who.bob, id)).status).to.equal(200);
          if (k === 0) expect((await apply(who.bob, id, { prefer: 'wait=30' })).status).to.equal(200);
          if (k === 2) expect((await reject(who.bob, id, 'not now')).status).to.equal(200);
        }),
      );
    }
    const expiring = ids.filter((_, i) => i % 5 === 3);
    await s.db
      .collection('staged_operations')
      .updateMany({ _id: { $in: expiring } } as never, { $set: { expires_at: '2026-01-01T00:00:00.000Z' } });
    const connection = createRedis(s.config.redisUrl);
    const maintenance = new Queue(MAINTENANCE_QUEUE, { connection, prefix: s.config.queuePrefix });
    try {
      await maintenance.add('sweep-expired', {});
      await waitUntil(
        'the expiry sweep',
        async () =>
          (await s.db.collection('staged_operations').countDocuments({ org_id: books.orgId, status: 'expired' })) ===
          expiring.length,
        60_000,
      );
    } finally {
      await maintenance.close();
      connection.disconnect();
    }
    const histories = new Map<string, string[]>();
    const kinds = new Set<string>();
    for (const id of ids) {
      const op = (await show(who.bob, id)).body.data;
      kinds.add(op.kind);
      histories.set(
        id,
        op.history.map((h) => `staged_operation.${h.to}`),
      );
    }
    expect([...kinds].sort()).to.deep.equal(['bank_reconcile', 'ledger_link_repair', 'ledger_reversal']);
    const ends = [...histories.values()].map((h) => h[h.length - 1]);
    for (const end of ['staged', 'applied', 'approved', 'rejected', 'expired'])
      expect(ends, end).to.include(`staged_operation.${end}`);
    const total = [...histories.values()].reduce((n, h) => n + h.length, 0);
    let events: Event[] = [];
    await waitUntil('every event settled', async () => (events = await feed(feedToken)).length >= total, 30_000);
    expect(events).to.have.length(total);
    expect(new Set(events.map((e) => e.id)).size).to.equal(total);
    for (let i = 1; i < events.length; i += 1) expect(events[i]!.sequence).to.be.greaterThan(events[i - 1]!.sequence);
    for (const [id, history] of histories) {
      expect(
        events.filter((e) => e.data.staged_operation.staged_operation_id === id).map((e) => e.type),
        id,
      ).to.deep.equal(history);
    }
  });

  it("another organisation's endpoints never receive an event", async () => {
    const mine = await newReceiver();
    const theirs = await newReceiver();
    const a = await reconcileScenario();
    const b = await reconcileScenario();
    await endpoint(a.books.orgId, mine.url);
    await endpoint(b.books.orgId, theirs.url);
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: a.who.alice, body: a.body });
    expect(staged.status).to.equal(201);
    await waitUntil('the delivery to its own org', () => mine.received.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(theirs.received).to.have.length(0);
    const theirsStaged = await call<ReconcileData>('POST', RECONCILE, { token: b.who.alice, body: b.body });
    await waitUntil("the other org's own delivery", () => theirs.received.length >= 1);
    expect(bodies(theirs).map((e) => e.data.staged_operation.staged_operation_id)).to.deep.equal([
      theirsStaged.body.data.staged_operation_id,
    ]);
    expect(bodies(mine).map((e) => e.data.staged_operation.staged_operation_id)).to.deep.equal([
      staged.body.data.staged_operation_id,
    ]);
  });

  it('a private-address or plain-http URL is refused (422 webhook_url_refused) unless WEBHOOK_ALLOW_INSECURE=true', async () => {
    const s = await stack();
    const orgId = (await reconcileScenario()).books.orgId;
    const token = await s.token(orgId, ['webhooks:manage'], 'ops');
    const strict = await startApi(
      { ...s.config, port: 0, webhookAllowInsecure: 'false' },
      createLogger('api', 'silent'),
    );
    try {
      const post = async (url: string) => {
        const res = await fetch(`http://127.0.0.1:${strict.port}${ENDPOINTS}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { error?: { code: string; details: { reason: string } } },
        };
      };
      for (const [url, reason] of [
        ['http://hooks.example.com/x', 'not_https'],
        ['https://127.0.0.1/x', 'forbidden_address'],
        ['https://10.1.2.3/x', 'forbidden_address'],
        ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
        ['https://[::1]/x', 'forbidden_address'],
        ['https://localhost/x', 'forbidden_address'],
      ] as const) {
        const answer = await post(url);
        expect([url, answer.status, answer.body.error?.code, answer.body.error?.details.reason]).to.deep.equal([
          url,
          422,
          'webhook_url_refused',
          reason,
        ]);
      }
      expect((await post('https://hooks.example.com/x')).status).to.equal(201);
    } finally {
      await strict.close();
    }
    // The test stack allows it (as npm start does).
    expect((await call('POST', ENDPOINTS, { token, body: { url: 'http://127.0.0.1:9/x' } })).status).to.equal(201);
  });

  it('the documented verification accepts a real delivery and refuses a wrong secret, a changed body, a changed time and an old replay', async () => {
    const r = await newReceiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url, ['staged_operation.staged']);
    expect((await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body })).status).to.equal(201);
    await waitUntil('the delivery', () => r.received.length >= 1);
    const { body, headers } = r.received[0]!;
    const header = String(headers['bookstage-signature']);
    const t = Number(/t=(\d+)/.exec(header)![1]);
    const v1 = /v1=([0-9a-f]+)/.exec(header)![1]!;
    const signedAt = (secret: string, at: number, raw = body): string =>
      `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${raw}`).digest('hex')}`;
    expect(verify(ep.secret, body, header), 'the delivery as received').to.equal(true);
    expect(verify(`${ep.secret}x`, body, header), 'another secret').to.equal(false);
    expect(
      verify(ep.secret, body.replace('staged_operation.staged', 'staged_operation.applied'), header),
      'a changed body',
    ).to.equal(false);
    expect(verify(ep.secret, `${body} `, header), 'one byte more').to.equal(false);
    expect(verify(ep.secret, body, `t=${t + 1},v1=${v1}`), 'a changed time').to.equal(false);
    expect(verify(ep.secret, body, `t=${t},v1=${v1.slice(0, -1)}`), 'a cut signature').to.equal(false);
    expect(verify(ep.secret, body, ''), 'no header').to.equal(false);
    const old = Math.floor(Date.now() / 1000) - 301;
    expect(
      verify(ep.secret, body, signedAt(ep.secret, old)),
      'a replay over five minutes old, correctly signed',
    ).to.equal(false);
    expect(verify(ep.secret, body, signedAt(ep.secret, old + 2)), 'correctly signed within five minutes').to.equal(
      true,
    );
  });
});
