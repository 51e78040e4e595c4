// The retry contract an agent relies on (docs/reference/http-api.md §6.2–§6.4), one
// test per rule, on the real stack.
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { shutdownGraceMs } from '../../api/shutdown-grace.js';
import { loadConfig } from '../../shared/config.js';
import { stageJobOptions, type StageJobReturn } from '../../shared/queue/stage-jobs.js';
import { findJobResult } from '../../shared/storage/job-results.js';
import { Books } from '../helpers/books.js';
import type { LinkRepairData, PendingData, ReversalData } from '../helpers/answers.js';
import { call, poll } from '../helpers/http.js';
import { apiWithOwnRedis, type OwnRedisApi } from '../helpers/own-redis-api.js';
import { stack } from '../helpers/stack.js';
import { countStagedWithPlan } from '../helpers/staged.js';

const path = (entry: string): string => `/api/v1/cli/ledger/entries/${entry}/reverse/stage`;

/** A staging POST with a fixed key and no wait, straight to an API of a test's own. */
const postTo = (port: number, route: string, token: string, key: string) => (): Promise<Response> =>
  fetch(`http://127.0.0.1:${port}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      prefer: 'wait=0',
    },
    body: '{}',
  });

async function reversibleEntry(): Promise<{ books: Books; entry: string; token: string }> {
  const books = new Books();
  const entry = books.invoice(11_900);
  await (await stack()).load(books.file);
  return { books, entry, token: await (await stack()).token(books.orgId, ['ledger:stage']) };
}

/** The pending operation disappears (what approval or rejection will do): its locks and record go. */
async function removeOperation(id: string): Promise<void> {
  const { db } = await stack();
  await db.collection('scope_locks').deleteMany({ staged_operation_id: id });
  await db.collection('staged_operations').deleteOne({ _id: id } as never);
}

describe('agent retries converge', () => {
  it('does not remember a retryable 409: the same key and body stage once the conflicting operation is gone', async () => {
    const { entry, token } = await reversibleEntry();
    const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
    expect(first.status).to.equal(201);
    const headers = { 'idempotency-key': `conflict-${entry}` };
    const blocked = await call('POST', path(entry), { token, body: { reason: 'second' }, headers });
    expect(blocked.status).to.equal(409);
    expect(blocked.body.error.code).to.equal('pending_operation');
    await removeOperation(first.body.data.staged_operation_id);
    const retried = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'second' }, headers });
    expect(retried.status).to.equal(201);
    expect(retried.body.data.plan.reason).to.equal('second');
  });

  it('parallel retries after a retryable 409 all join one new attempt: one operation, one answer', async () => {
    const { entry, token } = await reversibleEntry();
    const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
    const headers = { 'idempotency-key': `race-${entry}` };
    const blocked = await call('POST', path(entry), { token, body: { reason: 'second' }, headers });
    expect(blocked.status).to.equal(409);
    await removeOperation(first.body.data.staged_operation_id);
    const retries = await Promise.all(
      Array.from({ length: 6 }, () =>
        call<ReversalData>('POST', path(entry), { token, body: { reason: 'second' }, headers }),
      ),
    );
    expect(retries.map((r) => r.status)).to.deep.equal(Array(6).fill(201));
    expect(new Set(retries.map((r) => r.body.data.staged_operation_id)).size).to.equal(1);
    expect(await countStagedWithPlan({ ledger_entry_id: entry, reason: 'second' })).to.equal(1);
  });

  it('does not pin a key to a job that failed for good: the retry runs a new attempt', async () => {
    const s = await stack();
    const { entry, token } = await reversibleEntry();
    const headers = { 'idempotency-key': `fail-${entry}` };
    await s.stopWorker();
    await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'stage:fail-for-good' });
    try {
      const failed = await call('POST', path(entry), { token, body: {}, headers });
      expect(failed.status).to.equal(500);
      expect(failed.body.error).to.include({ code: 'job_failed', retryable: false });
      const polledJob = await call('GET', `/api/v1/cli/jobs/${failed.body.error.details.job_id as string}`, { token });
      expect(polledJob.status).to.equal(500);
      expect(polledJob.body.error.code).to.equal('job_failed');
    } finally {
      await s.stopWorker();
      await s.startWorker();
    }
    const retried = await call('POST', path(entry), { token, body: {}, headers });
    expect(retried.status).to.equal(201);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
  });

  it('treats a key whose record expired as a new request with a new operation', async () => {
    const s = await stack();
    const { entry, token } = await reversibleEntry();
    const headers = { 'idempotency-key': `expire-${entry}` };
    const first = await call<ReversalData>('POST', path(entry), { token, body: {}, headers });
    expect(first.status).to.equal(201);
    await removeOperation(first.body.data.staged_operation_id);
    const past = new Date(Date.now() - 25 * 3600_000).toISOString();
    const moved = await s.db
      .collection('idempotency_keys')
      .updateMany({ request_id: first.body.request_id }, { $set: { created_at: past, expires_at: past } });
    expect(moved.modifiedCount).to.equal(1);
    const again = await call<ReversalData>('POST', path(entry), { token, body: {}, headers });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.body.data.staged_operation_id).to.not.equal(first.body.data.staged_operation_id);
  });

  it('after a worker crash between writing the operation and finishing the job, one operation; replay, poll and job value agree', async () => {
    const s = await stack();
    const { books, entry, token } = await reversibleEntry();
    const headers = { 'idempotency-key': `crash-${entry}`, prefer: 'wait=0' };
    await s.stopWorker();
    await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'stage:crash-after-write' });
    const pending = await call<PendingData>('POST', path(entry), { token, body: {}, headers });
    expect(pending.status).to.equal(202);
    const jobPath = pending.headers.get('location')!;
    // The worker dies with the operation written and the job unfinished.
    for (let i = 0; i < 100 && (await countStagedWithPlan({ ledger_entry_id: entry })) === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await s.killWorker();
    await s.startWorker();
    const polled = await poll<ReversalData>(jobPath, token, (a) => a.status !== 202);
    expect(polled.status).to.equal(201);
    const replay = await call('POST', path(entry), {
      token,
      body: {},
      headers: { 'idempotency-key': `crash-${entry}` },
    });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(JSON.stringify(replay.body)).to.equal(JSON.stringify(polled.body));
    expect(await countStagedWithPlan({ ledger_entry_id: entry })).to.equal(1);
    const queue = new Queue('stage', { connection: { url: s.config.redisUrl }, prefix: s.config.queuePrefix });
    try {
      const job = await queue.getJob(pending.body.data.job_id);
      const { answer, ...pointer } = job!.returnvalue as StageJobReturn;
      expect(pointer).to.deep.equal({
        job_result_id: pending.body.data.job_id,
        outcome: 'staged',
        staged_operation_id: polled.body.data.staged_operation_id,
      });
      // The rerun's write was the first: the answer it carries is the stored one, byte for byte.
      const stored = await findJobResult(s.db, books.orgId, pending.body.data.job_id);
      expect(JSON.stringify(answer)).to.equal(JSON.stringify(stored!.answer));
    } finally {
      await queue.close();
    }
  });

  it("a small answer travels with the job's return value, byte for byte the answer stored; the response is the stored answer's", async () => {
    const s = await stack();
    const { books, entry, token } = await reversibleEntry();
    const staged = await call<ReversalData>('POST', path(entry), {
      token,
      body: {},
      headers: { 'idempotency-key': `carried-${entry}` },
    });
    expect(staged.status).to.equal(201);
    const jobId = (await s.db
      .collection<{ _id: string; job_id: string }>('idempotency_keys')
      .findOne({ job_id: { $exists: true }, org_id: books.orgId }))!.job_id;
    const queue = new Queue('stage', { connection: { url: s.config.redisUrl }, prefix: s.config.queuePrefix });
    try {
      const job = await queue.getJob(jobId);
      const carried = (job!.returnvalue as StageJobReturn).answer;
      const stored = await findJobResult(s.db, books.orgId, jobId);
      expect(carried, 'carried answer').to.not.equal(undefined);
      expect(JSON.stringify(carried)).to.equal(JSON.stringify(stored!.answer));
      // A replay reads the store and answers the same bytes.
      const replay = await call<ReversalData>('POST', path(entry), {
        token,
        body: {},
        headers: { 'idempotency-key': `carried-${entry}` },
      });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(JSON.stringify(replay.body.data)).to.equal(JSON.stringify(staged.body.data));
    } finally {
      await queue.close();
    }
  });

  it('two different plans racing for one subject: one is staged, every other answer is 409 naming it', async () => {
    const { entry, token } = await reversibleEntry();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_v, i) =>
        call<ReversalData>('POST', path(entry), { token, body: { reason: `plan ${i}` } }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created).to.have.length(1);
    const winner = created[0]!.body.data.staged_operation_id;
    for (const other of answers.filter((a) => a !== created[0])) {
      expect(other.status).to.equal(409);
      expect(other.body.error.details.staged_operation_ids).to.deep.equal([winner]);
    }
  });

  it('answers the very same pending plan only to its creator or an approver; another actor gets 409', async () => {
    const s = await stack();
    const { books, entry, token } = await reversibleEntry();
    const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'same' } });
    expect(first.status).to.equal(201);
    const bob = await s.token(books.orgId, ['ledger:stage'], 'bob');
    const other = await call('POST', path(entry), { token: bob, body: { reason: 'same' } });
    expect(other.status).to.equal(409);
    expect(other.body.error.details.staged_operation_ids).to.deep.equal([first.body.data.staged_operation_id]);
    const carol = await s.token(books.orgId, ['ledger:stage', 'staged:approve'], 'carol');
    const approver = await call<ReversalData>('POST', path(entry), { token: carol, body: { reason: 'same' } });
    expect(approver.status).to.equal(200);
    expect(approver.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
  });

  it('keeps the job and its event small: the return value is a pointer, never a plan of 5,000 actions', async function () {
    this.timeout(180_000);
    const s = await stack();
    const books = new Books();
    const account = books.account();
    // 5,000 payments each linked to the wrong one of two invoices: FIFO moves every link.
    for (let i = 0; i < 2500; i += 1) {
      const early = books.invoice(100, { entry_date: '2026-01-01', counterparty_id: 'cp_big' });
      const late = books.invoice(100, { entry_date: '2026-01-02', counterparty_id: 'cp_big' });
      books.link(books.txn(account, 100, { booking_date: '2026-01-05', counterparty_id: 'cp_big' }), late, 100);
      books.link(books.txn(account, 100, { booking_date: '2026-01-06', counterparty_id: 'cp_big' }), early, 100);
    }
    await s.load(books.file);
    const token = await s.token(books.orgId, ['bank:stage']);
    const answer = await call<LinkRepairData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
      token,
      body: { bank_account_id: account, counterparty_id: 'cp_big', as_of: '2026-12-31' },
      headers: { 'idempotency-key': `big-${books.uid}`, prefer: 'wait=120' },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    expect(answer.body.data.plan.actions.length).to.be.at.least(5000);
    const jobId = (await s.db.collection('idempotency_keys').findOne({ request_id: answer.body.request_id }))!
      .job_id as string;
    const redis = new Redis(s.config.redisUrl);
    try {
      const bytes = Number(await redis.call('MEMORY', 'USAGE', `${s.config.queuePrefix}:stage:${jobId}`));
      expect(bytes).to.be.greaterThan(0).and.lessThan(20_000);
      const events = (await redis.xrevrange(`${s.config.queuePrefix}:stage:events`, '+', '-', 'COUNT', 200)) as [
        string,
        string[],
      ][];
      const ofJob = events.filter(([, fields]) => fields.includes(jobId));
      expect(ofJob.length).to.be.greaterThan(0);
      for (const [, fields] of ofJob) expect(fields.join('').length).to.be.lessThan(20_000);
    } finally {
      redis.disconnect();
    }
  });

  it('rides out a 30 s outage with its retries, and the API grace covers the longest wait it grants', () => {
    const config = loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:1/x', REDIS_URL: 'redis://127.0.0.1:1' });
    const options = stageJobOptions(config);
    const waited = Array.from({ length: options.attempts - 1 }, (_v, i) => options.backoff.delay * 2 ** i).reduce(
      (a, b) => a + b,
      0,
    );
    expect(waited).to.be.at.least(30_000);
    expect(shutdownGraceMs(config.stageWaitMaxMs)).to.be.at.least(config.stageWaitMaxMs + 1000);
  });

  describe('with Redis stopped and started again', () => {
    let own: OwnRedisApi | null = null;

    afterEach(async () => {
      await own?.close();
      own = null;
    });

    it('starts while Redis is down, answers 503 meanwhile, and stages once Redis is up', async function () {
      this.timeout(60_000);
      own = await apiWithOwnRedis('startdown', { redisDown: true });
      const { entry, token } = await reversibleEntry();
      const post = postTo(own.port, path(entry), token, `late-${entry}`);
      expect((await post()).status).to.equal(503);
      await own.startRedis();
      let status = 503;
      for (let i = 0; i < 50 && status === 503; i += 1) {
        status = (await post()).status;
        if (status === 503) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).to.equal(202);
    });

    it('answers 503 dependency_unavailable fast while Redis is down, and stages once it is back, without restarts', async function () {
      this.timeout(60_000);
      const s = await stack();
      own = await apiWithOwnRedis('outage');
      const { entry, token } = await reversibleEntry();
      const post = postTo(own.port, path(entry), token, `outage-${entry}`);

      await own.stopRedis();
      const started = Date.now();
      const down = await post();
      const elapsed = Date.now() - started;
      const body = (await down.json()) as { error: { code: string; retryable: boolean } };
      expect(down.status).to.equal(503);
      expect(body.error).to.include({ code: 'dependency_unavailable', retryable: true });
      expect(down.headers.get('retry-after')).to.equal('1');
      expect(down.headers.get('x-request-id')).to.be.a('string');
      expect(elapsed).to.be.lessThan(2000);

      await own.startRedis();
      let up: Response | null = null;
      for (let i = 0; i < 50; i += 1) {
        up = await post();
        if (up.status !== 503) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // No worker serves this queue prefix: the request is accepted and waits for one (202), nothing lost.
      expect(up!.status).to.equal(202);
      expect(s.apiLogs.length).to.be.greaterThan(0);
    });
  });
});
