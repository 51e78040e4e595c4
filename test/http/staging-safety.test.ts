import { expect } from 'chai';
import type { PendingData, ReversalData } from '../helpers/answers.js';
import { collections } from '../../shared/storage/collections.js';
import { Books } from '../helpers/books.js';
import { call, poll } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { sweepExpired } from '../../worker/maintenance.js';
import { countStagedWithPlan } from '../helpers/staged.js';

const path = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;

async function reversibleEntry() {
  const books = new Books();
  const account = books.account();
  const entry = books.invoice(7_500);
  books.link(books.txn(account, 7_500), entry, 7_500);
  const s = await stack();
  await s.load(books.file);
  return { books, entry, token: await s.token(books.orgId, ['ledger:stage']) };
}

async function stagedCount(entry: string): Promise<number> {
  return countStagedWithPlan({ ledger_entry_id: entry });
}

describe('safe staging for agents', () => {
  describe('Idempotency-Key', () => {
    it('20 parallel identical requests with one key stage one operation and answer 20 identical bodies, 19 replayed', async () => {
      const { entry, token } = await reversibleEntry();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call<ReversalData>('POST', path(entry), {
            token,
            body: { reversal_date: '2026-03-01' },
            headers: { 'idempotency-key': `key-${entry}` },
          }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(201));
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).to.equal(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(19);
      expect(await stagedCount(entry)).to.equal(1);
    });

    it('replays the original answer to a later retry, with Idempotent-Replayed: true', async () => {
      const { entry, token } = await reversibleEntry();
      const headers = { 'idempotency-key': 'retry-me' };
      const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'r' }, headers });
      const retry = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'r' }, headers });
      expect(first.status).to.equal(201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      expect(retry.status).to.equal(201);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect(retry.body).to.deep.equal(first.body);
      expect(retry.headers.get('location')).to.equal(first.headers.get('location'));
      expect(retry.headers.get('x-request-id')).to.not.equal(first.headers.get('x-request-id'));
    });

    it('replays refusals too: the same key and body answer the same error', async () => {
      const { entry, token } = await reversibleEntry();
      const headers = { 'idempotency-key': 'bad-date' };
      const first = await call<ReversalData>('POST', path(entry), {
        token,
        body: { reversal_date: '2000-01-01' },
        headers,
      });
      const retry = await call<ReversalData>('POST', path(entry), {
        token,
        body: { reversal_date: '2000-01-01' },
        headers,
      });
      expect(first.status).to.equal(422);
      expect(retry.status).to.equal(422);
      expect(retry.body).to.deep.equal(first.body);
    });

    it('refuses the same key with a different body: 422 idempotency_key_reused', async () => {
      const { entry, token } = await reversibleEntry();
      const headers = { 'idempotency-key': 'once' };
      await call<ReversalData>('POST', path(entry), { token, body: { reason: 'a' }, headers });
      const other = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'b' }, headers });
      expect(other.status).to.equal(422);
      expect(other.body.error).to.include({ code: 'idempotency_key_reused', retryable: false });
    });

    it('keeps keys per actor: another actor may use the same key', async () => {
      const { books, entry, token } = await reversibleEntry();
      const other = await (await stack()).token(books.orgId, ['ledger:stage'], 'agent:other');
      const headers = { 'idempotency-key': 'shared-key' };
      const a = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'a' }, headers });
      const b = await call<ReversalData>('POST', path(entry), { token: other, body: { reason: 'b' }, headers });
      expect(a.status).to.equal(201);
      expect(b.status).to.equal(409);
      expect(b.body.error.code).to.equal('pending_operation');
    });

    it('refuses a key longer than 255 characters or with control characters: 400 with a header pointer', async () => {
      const { entry, token } = await reversibleEntry();
      for (const key of ['k'.repeat(256), 'tab\there']) {
        const res = await call<ReversalData>('POST', path(entry), {
          token,
          body: {},
          headers: { 'idempotency-key': key },
        });
        expect(res.status).to.equal(400);
        expect(res.body.error.errors).to.deep.equal([
          { pointer: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' },
        ]);
      }
      expect(await stagedCount(entry)).to.equal(0);
    });

    it('sweeps keys and job results once they are older than 24 hours, and not before', async () => {
      const { entry, token } = await reversibleEntry();
      await call<ReversalData>('POST', path(entry), {
        token,
        body: {},
        headers: { 'idempotency-key': `sweep-${entry}` },
      });
      const { db } = await stack();
      const keys = collections(db).idempotencyKeys;
      const one = await keys.findOne(
        { actor: 'alice', expires_at: { $gt: new Date().toISOString() } },
        { sort: { created_at: -1 } },
      );
      expect(one).to.not.equal(null);
      const early = await sweepExpired(db, new Date(Date.parse(one!.created_at) + 23 * 3600_000));
      expect(await keys.countDocuments({ _id: one!._id })).to.equal(1);
      expect(early.idempotency_keys).to.be.a('number');
      await sweepExpired(db, new Date(Date.parse(one!.created_at) + 24 * 3600_000 + 1000));
      expect(await keys.countDocuments({ _id: one!._id })).to.equal(0);
    });
  });

  describe('one pending plan per subject', () => {
    it('an identical request that meets the locks before their operation is written waits for it: 200 with its id, not 409', async function () {
      this.timeout(60_000);
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      await s.stopWorker();
      // 300 ms between the first job's lock insert and its operation insert: the second job meets the locks alone.
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'stage:slow-after-locks' });
      try {
        // A fresh worker's first job is slower (its code is still compiling, its pools
        // empty): warmed by one staging elsewhere, so the 100 ms head start holds.
        const warm = await reversibleEntry();
        expect((await call<ReversalData>('POST', path(warm.entry), { token: warm.token, body: {} })).status).to.equal(
          201,
        );
        const first = call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
        await new Promise((resolve) => setTimeout(resolve, 100));
        const second = call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } });
        // Which job takes the locks first is the worker's to decide (it runs both at once);
        // the rule is that the other one, meeting locks without their operation,
        // waits for it and answers its id.
        const answers = await Promise.all([first, second]);
        expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).to.deep.equal([
          200, 201,
        ]);
        expect(answers[1].body.data.staged_operation_id).to.equal(answers[0].body.data.staged_operation_id);
        expect(await stagedCount(entry)).to.equal(1);
      } finally {
        await s.stopWorker();
        await s.startWorker();
      }
    });

    it('20 parallel identical requests without a key stage one operation; the others answer 200 with its id', async () => {
      const { entry, token } = await reversibleEntry();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call<ReversalData>('POST', path(entry), { token, body: { reversal_date: '2026-03-01' } }),
        ),
      );
      const created = answers.filter((a) => a.status === 201);
      expect(created).to.have.length(1);
      const id = created[0]!.body.data.staged_operation_id;
      const others = answers.filter((a) => a !== created[0]);
      expect(others.map((a) => a.status)).to.deep.equal(Array(19).fill(200));
      expect(others.every((a) => a.body.data.staged_operation_id === id)).to.equal(true);
      expect(await stagedCount(entry)).to.equal(1);
    });

    it('answers a different plan on a locked subject with 409 pending_operation naming the pending id', async () => {
      const { entry, token } = await reversibleEntry();
      const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
      const second = await call<ReversalData>('POST', path(entry), {
        token,
        body: { reason: 'second' },
        headers: { 'idempotency-key': 'k2' },
      });
      expect(second.status).to.equal(409);
      expect(second.body.error.details.staged_operation_ids).to.deep.equal([first.body.data.staged_operation_id]);
    });

    it('a lock whose operation expired holds nothing: another plan for the subject clears it and stages (201)', async () => {
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
      expect(first.status).to.equal(201);
      const firstId = first.body.data.staged_operation_id;
      // Past its expiry, before the sweep has marked it expired.
      await s.db
        .collection('staged_operations')
        .updateOne({ _id: firstId } as never, { $set: { expires_at: '2026-01-01T00:00:00.000Z' } });
      const second = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'second' } });
      expect(second.status, JSON.stringify(second.body)).to.equal(201);
      expect(second.body.data.staged_operation_id).to.not.equal(firstId);
      expect(await s.db.collection('scope_locks').countDocuments({ staged_operation_id: firstId })).to.equal(0);
      expect(
        await s.db
          .collection('scope_locks')
          .countDocuments({ staged_operation_id: second.body.data.staged_operation_id }),
      ).to.be.greaterThan(0);
    });

    it('a lock left by a job that died before writing its operation holds nothing once past the orphan limit: the next staging stages (201)', async () => {
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      const first = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
      const firstId = first.body.data.staged_operation_id;
      // Its locks stay, its operation is gone, and the locks are older than any live take.
      await s.db.collection('staged_operations').deleteOne({ _id: firstId } as never);
      await s.db
        .collection('scope_locks')
        .updateMany({ staged_operation_id: firstId }, { $set: { created_at: '2026-01-01T00:00:00.000Z' } });
      const second = await call<ReversalData>('POST', path(entry), { token, body: { reason: 'first' } });
      expect(second.status, JSON.stringify(second.body)).to.equal(201);
      expect(second.body.data.staged_operation_id).to.not.equal(firstId);
      expect(await s.db.collection('scope_locks').countDocuments({ staged_operation_id: firstId })).to.equal(0);
    });
  });

  describe('wait, time-out and job polling', () => {
    afterEach(async () => {
      await (await stack()).startWorker();
    });

    it('answers 202 with a job id when the wait runs out, and the job answers the 201 envelope once a worker runs it', async () => {
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      await s.stopWorker();
      const pending = await call<PendingData>('POST', path(entry), {
        token,
        body: { reason: 'later' },
        headers: { prefer: 'wait=0' },
      });
      expect(pending.status).to.equal(202);
      expect(pending.headers.get('preference-applied')).to.equal('wait=0');
      expect(pending.body.data.outcome).to.equal('pending');
      const jobPath = pending.headers.get('location')!;
      expect(jobPath).to.equal(`/api/v1/cli/jobs/${pending.body.data.job_id}`);
      const stillPending = await call('GET', jobPath, { token });
      expect(stillPending.status).to.equal(202);

      await s.startWorker();
      const done = await poll<ReversalData>(jobPath, token, (a) => a.status !== 202);
      expect(done.status).to.equal(201);
      expect(done.body).to.deep.include({
        ok: true,
        operation: 'ledger_reversal.stage',
        request_id: pending.body.request_id,
      });
      expect(done.body.data.plan.reason).to.equal('later');
      expect(await stagedCount(entry)).to.equal(1);
    });

    it('a job survives an API restart and stays readable by its id', async () => {
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      await s.stopWorker();
      const pending = await call<PendingData>('POST', path(entry), { token, body: {}, headers: { prefer: 'wait=0' } });
      expect(pending.status).to.equal(202);
      await s.restartApi();
      await s.startWorker();
      const done = await poll(pending.headers.get('location')!, token, (a) => a.status !== 202);
      expect(done.status).to.equal(201);
      expect(await stagedCount(entry)).to.equal(1);
    });

    it('a retry with the same key while the job is still queued answers 202 with the same job, then the replay once done', async () => {
      const s = await stack();
      const { entry, token } = await reversibleEntry();
      await s.stopWorker();
      const headers = { 'idempotency-key': `slow-${entry}`, prefer: 'wait=0' };
      const first = await call<PendingData>('POST', path(entry), { token, body: {}, headers });
      const retry = await call<PendingData>('POST', path(entry), { token, body: {}, headers });
      expect(first.status).to.equal(202);
      expect(retry.status).to.equal(202);
      expect(retry.body.data).to.deep.equal({ outcome: 'pending', job_id: first.body.data.job_id });
      expect(retry.headers.get('location')).to.equal(`/api/v1/cli/jobs/${first.body.data.job_id}`);
      expect(retry.headers.get('retry-after')).to.equal('1');
      await s.startWorker();
      const replay = await call<ReversalData>('POST', path(entry), {
        token,
        body: {},
        headers: { 'idempotency-key': `slow-${entry}` },
      });
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(await stagedCount(entry)).to.equal(1);
    });

    it('hides a job from another actor and another organisation: 404', async () => {
      const s = await stack();
      const { books, entry, token } = await reversibleEntry();
      const answer = await call<ReversalData>('POST', path(entry), { token, body: {} });
      expect(answer.status).to.equal(201);
      const job = await collections(s.db).jobResults.findOne({ request_id: answer.body.request_id });
      const jobPath = `/api/v1/cli/jobs/${job!._id}`;
      expect((await call('GET', jobPath, { token })).status).to.equal(201);
      const otherActor = await s.token(books.orgId, ['ledger:stage'], 'bob');
      const otherOrg = (await reversibleEntry()).token;
      for (const t of [otherActor, otherOrg]) {
        const res = await call('GET', jobPath, { token: t });
        expect(res.status).to.equal(404);
        expect(res.body.error.code).to.equal('not_found');
      }
    });
  });
});
