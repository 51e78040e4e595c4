import { expect } from 'chai';
import type { ReconcileData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve, doc, docs, locksOf, show } from '../helpers/staged.js';
import { conflictAfterFirstWrite, RECONCILE, reconcileScenario, waitFor } from '../faults/fault-scenario.js';

describe('staged operations: a worker crash in the middle of an apply', () => {
  it('SIGKILL after the first journal write, a new worker: the apply completes exactly once, the books as a clean apply leaves them', async () => {
    const s = await stack();
    const { account, txns, who, body } = await reconcileScenario();
    const staged = await call<ReconcileData>('POST', RECONCILE, { token: who.alice, body });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);

    await s.stopWorker();
    const logsBefore = s.workerLogs.length;
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
      const first = await apply(who.bob, id, { prefer: 'wait=1' });
      expect(first.status).to.equal(202);
      await waitFor('the fault hook', () =>
        s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      );
      // Half-way: one write made, the operation says so, nothing else changed.
      expect(await doc('bank_transactions', txns[0]!)).to.include({ status: 'reconciled', version: 2 });
      expect(await doc('bank_transactions', txns[1]!)).to.include({ status: 'unreconciled', version: 1 });
      expect((await show(who.bob, id)).body.data.status).to.equal('applying');
      await s.killWorker();
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    const resumed = await apply(who.bob, id, { prefer: 'wait=45' });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
    expect(resumed.body.data.status).to.equal('applied');
    for (const t of txns)
      expect(await doc('bank_transactions', t)).to.include({ status: 'reconciled', reconciliation_id: id, version: 2 });
    expect(await doc('bank_accounts', account)).to.deep.include({
      reconciled_through: { date: '2026-02-28', balance_minor: 2_500 },
      version: 2,
    });
    expect(await locksOf(id)).to.equal(0);
    const op = (await show(who.bob, id)).body.data;
    expect(op.history.map((h: { to: string }) => h.to)).to.deep.equal(['staged', 'approved', 'applying', 'applied']);
    expect(await docs('audit_events', { staged_operation_id: id, to: 'applied' })).to.have.length(1);
  });

  it('a document changed under the journal (an import while the apply was down): the writes made are undone, the operation fails, its locks go', async () => {
    const {
      sc: { account, txns, who },
      id,
      applied: res,
    } = await conflictAfterFirstWrite();
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('apply_failed');
    expect(res.body.error.details).to.deep.include({
      staged_operation_id: id,
      reason: 'conflict_during_apply',
      conflict: { collection: 'bank_transactions', id: txns[1] },
    });
    // The first write was undone (and that, too, bumped its version); nothing else was written.
    expect(await doc('bank_transactions', txns[0]!)).to.include({
      status: 'unreconciled',
      reconciliation_id: null,
      version: 3,
    });
    expect(await doc('bank_transactions', txns[1]!)).to.include({
      status: 'unreconciled',
      version: 2,
      remittance_info: 'changed',
    });
    expect(await doc('bank_accounts', account)).to.deep.include({ reconciled_through: null, version: 1 });
    expect(await locksOf(id)).to.equal(0);
    expect((await show(who.bob, id)).body.data.status).to.equal('failed');
  });
});
