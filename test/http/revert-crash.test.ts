// A worker killed in the middle of a revert's apply (docs/design/staged-lifecycle.md
// "Reverts", "Crash safety"): a new worker finishes the same journal, and the
// books end as a clean revert leaves them.
import { expect } from 'chai';
import type { ReconcileData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { Books } from '../helpers/books.js';
import { actors, apply, approve, doc, docs, locksOf, show, STAGED } from '../helpers/staged.js';
import { RECONCILE, reconcileScenario, waitFor } from '../faults/fault-scenario.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const withoutVersion = (d: Record<string, unknown> | null): Record<string, unknown> => {
  const { version: _version, ...rest } = d ?? {};
  return rest;
};

describe('a revert: a worker crash in the middle of its apply', () => {
  it('SIGKILL after the first journal write, a new worker: the revert completes once, the books as before the reconciliation', async () => {
    const s = await stack();
    const { account, txns, who, body } = await reconcileScenario();
    const before = [withoutVersion(await doc('bank_accounts', account))];
    for (const t of txns) before.push(withoutVersion(await doc('bank_transactions', t)));

    const staged = await call<ReconcileData>('POST', RECONCILE, { token: who.alice, body });
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);
    expect((await apply(who.bob, id)).status).to.equal(200);

    const revert = await call<ReconcileData>('POST', `${STAGED}/${id}/revert/stage`, { token: who.alice, body: {} });
    expect(revert.status, JSON.stringify(revert.body)).to.equal(201);
    const revertId = revert.body.data.staged_operation_id;
    expect((await approve(who.bob, revertId)).status).to.equal(200);

    await s.stopWorker();
    const logsBefore = s.workerLogs.length;
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
      const first = await apply(who.bob, revertId, { prefer: 'wait=1' });
      expect(first.status).to.equal(202);
      await waitFor('the fault hook', () =>
        s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      );
      // Half-way: the journal runs in reverse, so the account is back first; every transaction is still reconciled.
      expect(await doc('bank_accounts', account)).to.deep.include({ reconciled_through: null, version: 3 });
      for (const t of txns) expect(await doc('bank_transactions', t)).to.include({ status: 'reconciled', version: 2 });
      expect((await show(who.bob, revertId)).body.data.status).to.equal('applying');
      await s.killWorker();
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    const resumed = await apply(who.bob, revertId, { prefer: 'wait=45' });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
    expect(resumed.body.data.status).to.equal('applied');
    const after = [withoutVersion(await doc('bank_accounts', account))];
    for (const t of txns) after.push(withoutVersion(await doc('bank_transactions', t)));
    expect(after).to.deep.equal(before);
    expect(await doc('bank_accounts', account)).to.include({ version: 3 });
    for (const t of txns) expect(await doc('bank_transactions', t)).to.include({ version: 3 });
    expect(await locksOf(revertId)).to.equal(0);
    expect((await show(who.bob, id)).body.data).to.include({ reverted_by: revertId });
    expect(await docs('audit_events', { staged_operation_id: revertId, to: 'applied' })).to.have.length(1);
  });

  it("a journal entry's revert, SIGKILL after the first journal write: the resumed revert reverses the entry once, link and document back", async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const fee = books.txn(account, -350, { booking_date: '2026-03-02', counterparty_id: books.cp('bank') });
    const receipt = books.doc({});
    await s.load(books.file);
    const who = await actors(books.orgId);
    const staged = await call<ReconcileData>('POST', '/api/v1/cli/ledger/entries/stage', {
      token: who.alice,
      body: bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee, document_id: receipt }),
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);
    expect((await apply(who.bob, id)).status).to.equal(200);
    const entryId = (await show(who.bob, id)).body.data.result.changes.find(
      (c) => c.collection === 'ledger_entries',
    )!.id;

    const revert = await call<ReconcileData>('POST', `${STAGED}/${id}/revert/stage`, {
      token: who.alice,
      body: { reversal_date: '2026-03-31' },
    });
    expect(revert.status, JSON.stringify(revert.body)).to.equal(201);
    const revertId = revert.body.data.staged_operation_id;
    expect((await approve(who.bob, revertId)).status).to.equal(200);

    await s.stopWorker();
    const logsBefore = s.workerLogs.length;
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
      expect((await apply(who.bob, revertId, { prefer: 'wait=1' })).status).to.equal(202);
      await waitFor('the fault hook', () =>
        s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      );
      // Half-way: the document is back to open (the first write); the entry is not reversed yet.
      expect(await doc('inbox_documents', receipt)).to.include({ status: 'open', booked_entry_id: null });
      expect(await doc('ledger_entries', entryId)).to.include({ status: 'posted', version: 1 });
      expect(await docs('bank_links', { ledger_entry_id: entryId })).to.have.length(1);
      await s.killWorker();
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    const resumed = await apply(who.bob, revertId, { prefer: 'wait=45' });
    expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
    expect(resumed.body.data.status).to.equal('applied');
    const reversed = (await doc('ledger_entries', entryId))!;
    expect(reversed).to.include({ status: 'reversed', version: 2 });
    expect(await docs('ledger_entries', { reversal_of: entryId })).to.have.length(1);
    expect(await doc('ledger_entries', reversed.reversed_by as string)).to.include({
      entry_date: '2026-03-31',
      status: 'posted',
      version: 1,
    });
    expect(await docs('bank_links', { ledger_entry_id: entryId })).to.have.length(0);
    expect(await doc('inbox_documents', receipt)).to.include({ status: 'open', version: 3 });
    expect(await locksOf(revertId)).to.equal(0);
    expect((await show(who.bob, id)).body.data).to.include({ reverted_by: revertId });
    expect(await docs('audit_events', { staged_operation_id: revertId, to: 'applied' })).to.have.length(1);
  });
});
