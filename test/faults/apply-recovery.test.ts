// Recovery without a caller (docs/operating/reliability.md "Recovery bounds"): an apply
// whose job failed for good, after its journal was stored or after its
// approved → applying claim was written but before the journal was, is
// finished by the worker's recovery sweep, no apply call needed; the books
// then equal a clean run's. And claim identities are the server's: two
// requests that share an X-Request-Id never both win a transition.
import { expect } from 'chai';
import type { PendingData, ReconcileData, StagedOperationData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve, docs, show, STAGED } from '../helpers/staged.js';
import {
  booksSnapshot,
  cleanRun,
  locksByOperation,
  reconcileScenario,
  stageCall,
  waitFor,
  workerPids,
  type Scenario,
} from './fault-scenario.js';

/** The recovery sweep's interval for the healthy worker of these tests. */
const FAST_SWEEP = { RECOVERY_SWEEP_MS: '500' };

async function stagedAndApproved(sc: Scenario): Promise<string> {
  const staged = await stageCall(sc, `stage-${sc.books.uid}`, 'wait=30');
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = (staged.body.data as ReconcileData).staged_operation_id;
  expect((await approve(sc.who.bob, id)).status).to.equal(200);
  return id;
}

/**
 * Ask for the apply on a worker that dies at `fault`, and restart that worker
 * (same fault) until BullMQ gives the job up: its poll answers job_failed.
 * Leaves no worker running.
 */
async function applyUntilJobFailed(sc: Scenario, id: string, fault: string): Promise<void> {
  const s = await stack();
  await s.stopWorker();
  await s.startWorker({ BOOKSTAGE_TEST_FAULTS: fault });
  const pending = await call<PendingData>('POST', `${STAGED}/${id}/apply`, {
    token: sc.who.bob,
    headers: { prefer: 'wait=0', 'idempotency-key': `apply-${id}` },
  });
  expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
  const jobPath = pending.headers.get('location')!;
  const poll = () => call<StagedOperationData>('GET', jobPath, { token: sc.who.bob });
  for (let starts = 1; ; starts += 1) {
    // This worker runs the job until it dies at the fault, or until BullMQ gives the job up (its stall check at start).
    await waitFor(
      `the worker to die at ${fault} or the job to be given up`,
      async () => workerPids().length === 0 || (await poll()).status !== 202,
      30_000,
    );
    await s.killWorker();
    const polled = await poll();
    if (polled.status !== 202) {
      expect(polled.body.error?.code, JSON.stringify(polled.body)).to.equal('job_failed');
      return;
    }
    expect(starts, 'BullMQ kept retrying the crashing job').to.be.below(8);
    await s.startWorker({ BOOKSTAGE_TEST_FAULTS: fault });
  }
}

async function expectCleanlyApplied(sc: Scenario, id: string): Promise<void> {
  const s = await stack();
  const op = (await show(sc.who.bob, id)).body.data;
  expect(op.status).to.equal('applied');
  expect(op.history.map((h: { to: string }) => h.to)).to.deep.equal(['staged', 'approved', 'applying', 'applied']);
  expect(await docs('audit_events', { staged_operation_id: id, to: 'applied' }), 'applied audit events').to.have.length(
    1,
  );
  const clean = await cleanRun();
  expect(await booksSnapshot(s.db, sc, id)).to.deep.equal(await booksSnapshot(s.db, clean.sc, clean.id));
  expect(await locksByOperation(s.db, sc.books.orgId), 'plan locks left behind').to.deep.equal({});
}

async function statusOf(sc: Scenario, id: string): Promise<string> {
  return (await show(sc.who.bob, id)).body.data.status;
}

describe('apply recovery: an apply whose job failed for good ends by itself', function () {
  this.timeout(240_000);

  afterEach(async () => {
    const s = await stack();
    await s.killWorker();
    await s.startWorker();
  });

  it('journal stored, the job given up after a crash at every attempt (apply:crash-after-write:1): the recovery sweep finishes it with no apply call, the books equal a clean run, no lock left', async () => {
    const s = await stack();
    const sc = await reconcileScenario();
    const id = await stagedAndApproved(sc);
    await applyUntilJobFailed(sc, id, 'apply:crash-after-write:1');
    expect(await statusOf(sc, id)).to.equal('applying');
    const givenUp = Date.now();
    await s.startWorker(FAST_SWEEP);
    // Bound (docs/operating/reliability.md): the apply lease (10 s) + one sweep interval + the journal's own run.
    await waitFor('the sweep to finish the apply', async () => (await statusOf(sc, id)) === 'applied', 30_000, 250);
    expect(Date.now() - givenUp).to.be.below(30_000);
    await expectCleanlyApplied(sc, id);
  });

  it('claim written, journal never stored (apply:crash-after-claim), the job given up: reject answers what the operation truly is, and the sweep finishes the apply by itself', async () => {
    const s = await stack();
    const sc = await reconcileScenario();
    const id = await stagedAndApproved(sc);
    await applyUntilJobFailed(sc, id, 'apply:crash-after-claim');
    await s.startWorker(FAST_SWEEP);
    const started = Date.now();
    const rejected = await call<StagedOperationData>('POST', `${STAGED}/${id}/reject`, {
      token: sc.who.bob,
      body: { note: 'too late' },
      headers: { prefer: 'wait=30' },
    });
    expect(rejected.status, JSON.stringify(rejected.body)).to.equal(409);
    expect(rejected.body.error.code).to.equal('invalid_transition');
    expect(rejected.body.error.message).to.not.include('rejectd');
    // The answer names a status the operation really had: the claimed apply, not the approved it no longer is.
    expect(['applying', 'applied']).to.include(rejected.body.error.details.status);
    expect(Date.now() - started, 'reject waited on the stuck claim').to.be.below(5_000);
    await waitFor('the sweep to finish the apply', async () => (await statusOf(sc, id)) === 'applied', 30_000, 250);
    await expectCleanlyApplied(sc, id);
  });

  it('claim written, journal never stored, the job given up: the next apply call resumes it and answers applied', async () => {
    const s = await stack();
    const sc = await reconcileScenario();
    const id = await stagedAndApproved(sc);
    await applyUntilJobFailed(sc, id, 'apply:crash-after-claim');
    await s.startWorker();
    const again = await apply(sc.who.bob, id, { prefer: 'wait=45' });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.data.status).to.equal('applied');
    await expectCleanlyApplied(sc, id);
  });
});

describe('claim identity: two requests sharing an X-Request-Id', function () {
  this.timeout(240_000);

  it('a reject and an apply racing with the same X-Request-Id never both win: one answers 200, the other 409, and the operation ends as the winner left it', async () => {
    for (let round = 0; round < 10; round += 1) {
      const sc = await reconcileScenario();
      const id = await stagedAndApproved(sc);
      const headers = { 'x-request-id': `shared-${sc.books.uid}`, prefer: 'wait=30' };
      const [rejected, applied] = await Promise.all([
        call<StagedOperationData>('POST', `${STAGED}/${id}/reject`, {
          token: sc.who.bob,
          body: { note: 'no' },
          headers,
        }),
        call<StagedOperationData>('POST', `${STAGED}/${id}/apply`, { token: sc.who.bob, headers }),
      ]);
      const winners = [rejected, applied].filter((a) => a.status === 200);
      expect(winners, `round ${round}: reject ${rejected.status}, apply ${applied.status}`).to.have.length(1);
      const final = await statusOf(sc, id);
      expect(final).to.equal(rejected.status === 200 ? 'rejected' : 'applied');
      expect(
        await docs('audit_events', { staged_operation_id: id, from: 'approved' }),
        'transitions out of approved',
      ).to.have.length(1);
    }
  });
});
