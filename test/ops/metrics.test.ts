// /metrics on the API and on the worker (docs/operating/metrics.md): the named series
// are there after traffic, labelled by route template, and values move; the
// webhook delivery metrics move with real deliveries to local receivers.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createToken } from '../../shared/storage/api-tokens.js';
import { connectMongo, type Mongo } from '../../shared/storage/mongo.js';
import { receiver, waitUntil } from '../helpers/receiver.js';
import { REVERSAL, request, reversePath, reversibleEntries } from './fixtures.js';
import { inProcessApi, opsEnv, startWorkerProcess, stopAll, type Child } from './processes.js';

/** The value of the one sample `name{labels…}` (labels matched as a subset), or null when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const found = text.split('\n').filter((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? /.exec(line);
    if (!m || m[1] !== name) return false;
    return Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`));
  });
  if (found.length > 1)
    throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}:\n${found.join('\n')}`);
  return found.length === 0 ? null : Number(found[0]!.split(' ').pop());
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('GET /metrics', function () {
  this.timeout(60_000);
  const children: Child[] = [];
  let api: Awaited<ReturnType<typeof inProcessApi>>;
  let worker: Child & { metricsPort: number };
  let mongo: Mongo;

  before(async () => {
    // A database of its own: the plan-lock gauge counts the whole collection, and on FerretDB that count reads
    // every document, which the shared database (every other test's locks) would make slow.
    const shared = (await opsEnv()).MONGO_URL!;
    const url = new URL(shared);
    url.pathname = `/bookstage_ops_${randomBytes(4).toString('hex')}`;
    // Webhooks to the test's local receivers, given up after 3 attempts half a second apart (the delivery metrics' test).
    const env = await opsEnv({
      MONGO_URL: url.toString(),
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_BACKOFF_MS: '500',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
    });
    mongo = await connectMongo(env.MONGO_URL!);
    api = await inProcessApi(env);
    worker = await startWorkerProcess(env);
    children.push(worker);
  });
  after(async () => {
    await stopAll(children);
    await api.close();
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  it("the worker's: default process metrics, /healthz, and a staged job increments bookstage_jobs_total and the duration histogram", async () => {
    const workerUrl = `http://127.0.0.1:${worker.metricsPort}`;
    expect((await fetch(`${workerUrl}/healthz`)).status).to.equal(200);
    const kind = { queue: 'stage', kind: 'ledger_reversal.stage', outcome: 'staged' };
    const before = await scrape(`${workerUrl}/metrics`);
    expect(sample(before, 'process_cpu_user_seconds_total', { process: 'worker' })).to.be.a('number');
    expect(sample(before, 'nodejs_eventloop_lag_seconds', { process: 'worker' })).to.be.a('number');
    const count = sample(before, 'bookstage_jobs_total', kind) ?? 0;
    const { entries, token } = await reversibleEntries(1, mongo.db);
    const reply = await request(api.baseUrl, 'POST', reversePath(entries[0]!), { token, body: REVERSAL });
    expect(reply.status).to.equal(201);
    // The worker counts a job from BullMQ's own 'completed' event, which follows the completion the API
    // was woken by: the sample may lag the answer by a Redis round trip, so the test waits for it.
    let after = '';
    await waitUntil(
      'the worker to count the job',
      async () => {
        after = await scrape(`${workerUrl}/metrics`);
        return sample(after, 'bookstage_jobs_total', kind) === count + 1;
      },
      5_000,
    );
    expect(sample(after, 'bookstage_jobs_total', kind)).to.equal(count + 1);
    expect(sample(after, 'bookstage_job_duration_seconds_count', kind)).to.equal(count + 1);
    expect(sample(after, 'bookstage_job_duration_seconds_bucket', { ...kind, le: '+Inf' })).to.equal(count + 1);
  });

  it("the worker's webhook metrics: deliveries by outcome (delivered, failed, given_up) and the retry backlog, which rises while a receiver fails and falls when it recovers or is given up", async () => {
    const workerUrl = `http://127.0.0.1:${worker.metricsPort}`;
    const outcomes = async (): Promise<Record<string, number>> => {
      const text = await scrape(`${workerUrl}/metrics`);
      return Object.fromEntries(
        ['delivered', 'failed', 'given_up'].map((outcome) => [
          outcome,
          sample(text, 'bookstage_webhook_deliveries_total', { outcome }) ?? -1,
        ]),
      );
    };
    const backlog = async (): Promise<number | null> =>
      sample(await scrape(`${workerUrl}/metrics`), 'bookstage_webhook_retry_backlog');
    const before = await outcomes();
    expect(
      Object.values(before).every((n) => n >= 0),
      JSON.stringify(before),
    ).to.equal(true);
    expect(await backlog()).to.equal(0);

    // Two endpoints of one org: one answers 500 twice, then 204; the other always 500.
    const recovering = await receiver();
    const broken = await receiver();
    recovering.answer = (n) => (n <= 2 ? 500 : 204);
    broken.answer = () => 500;
    try {
      const { entries, orgId, token } = await reversibleEntries(1, mongo.db);
      const { token: manage } = await createToken(mongo.db, {
        org_id: orgId,
        actor: 'ops',
        scopes: ['webhooks:manage'],
      });
      for (const r of [recovering, broken])
        expect(
          (await request(api.baseUrl, 'POST', '/api/v1/cli/webhook-endpoints', { token: manage, body: { url: r.url } }))
            .status,
        ).to.equal(201);
      expect((await request(api.baseUrl, 'POST', reversePath(entries[0]!), { token, body: REVERSAL })).status).to.equal(
        201,
      );
      await waitUntil('a retry backlog of two endpoints', async () => (await backlog()) === 2, 20_000);
      await waitUntil(
        'both done: one delivered on its third attempt, one given up after its third',
        () => recovering.received.length >= 3 && broken.received.length >= 3,
        30_000,
      );
      await waitUntil('the backlog back to zero', async () => (await backlog()) === 0, 10_000);
      const after = await outcomes();
      expect({
        delivered: after.delivered! - before.delivered!,
        failed: after.failed! - before.failed!,
        given_up: after.given_up! - before.given_up!,
      }).to.deep.equal({ delivered: 1, failed: 4, given_up: 1 });
    } finally {
      await recovering.close();
      await broken.close();
    }
  });

  it("the API's: latency by route template and status, idempotent replays, queue depth by state, plan locks, process metrics", async () => {
    const before = await scrape(`${api.baseUrl}/metrics`);
    const { entries, token } = await reversibleEntries(1, mongo.db);
    const key = { 'idempotency-key': `ops-metrics-${entries[0]!}` };
    expect(
      (await request(api.baseUrl, 'POST', reversePath(entries[0]!), { token, body: REVERSAL, headers: key })).status,
    ).to.equal(201);
    const replay = await request(api.baseUrl, 'POST', reversePath(entries[0]!), {
      token,
      body: REVERSAL,
      headers: key,
    });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    const stagedId = String(replay.body.data!.staged_operation_id);
    expect((await request(api.baseUrl, 'GET', `/api/v1/cli/staged-operations/${stagedId}`, { token })).status).to.equal(
      200,
    );
    expect((await request(api.baseUrl, 'GET', '/no/such/route/123')).status).to.equal(404);
    expect((await request(api.baseUrl, 'GET', '/healthz')).status).to.equal(200);

    const text = await scrape(`${api.baseUrl}/metrics`);
    /** How much a sample grew with this test's traffic. */
    const grew = (name: string, labels: Record<string, string>): number =>
      (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    const count = 'bookstage_http_request_duration_seconds_count';
    // The original answer and its replay (the same stored answer, 201 both times).
    expect(
      grew(count, { method: 'POST', route: '/api/v1/cli/ledger/entries/:entry_id/reverse/stage', status: '201' }),
    ).to.equal(2);
    expect(grew(count, { method: 'GET', route: '/api/v1/cli/staged-operations/:id', status: '200' })).to.equal(1);
    expect(grew(count, { method: 'GET', route: 'unmatched', status: '404' })).to.equal(1);
    expect(grew(count, { method: 'GET', route: '/healthz', status: '200' })).to.equal(1);
    expect(grew(count, { method: 'GET', route: '/metrics', status: '200' })).to.equal(1);
    // Templates only: no id of the traffic above is a label value.
    for (const id of [entries[0]!, stagedId, 'no/such']) expect(text).to.not.include(id);
    expect(grew('bookstage_idempotent_replays_total', { operation: 'ledger_reversal.stage' })).to.equal(1);
    for (const state of ['waiting', 'active', 'delayed', 'failed']) {
      expect(sample(text, 'bookstage_queue_jobs', { queue: 'stage', state }), state).to.be.a('number');
      expect(sample(text, 'bookstage_queue_jobs', { queue: 'read', state }), state).to.be.a('number');
    }
    // The pending reversals of this database's two tests hold their scopes: the gauge shows exactly their lock documents.
    expect(sample(text, 'bookstage_scope_locks'))
      .to.equal(await mongo.db.collection('scope_locks').countDocuments({}))
      .and.be.greaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes', { process: 'api' })).to.be.greaterThan(0);
  });
});
