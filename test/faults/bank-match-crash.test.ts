// docs/reference/http-api.md §8.1: a worker SIGKILLed in the middle of a
// bank match's apply journal (after its first link insert, before the
// progress is recorded) leaves nothing a new worker cannot finish: the links
// are inserted exactly once, under the ids the result names.
import { expect } from 'chai';
import type { PendingData, StagedOperationData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, approve, docs, locksOf, STAGED } from '../helpers/staged.js';
import { waitFor, workerPids } from './fault-scenario.js';

describe('bank match: a worker crash in the middle of its apply', function () {
  this.timeout(240_000);

  it('SIGKILL after the first link insert, a new worker: every link exactly once, the ids the result names, no lock left', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const entries = [books.invoice(1_000), books.invoice(2_000), books.invoice(3_000)];
    const txn = books.txn(account, 6_000);
    await s.load(books.file);
    const who = await actors(books.orgId);
    const staged = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: entries.map((e, i) => ({
          bank_transaction_id: txn,
          ledger_entry_id: e,
          amount_minor: (i + 1) * 1_000,
        })),
      },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);

    await s.stopWorker();
    try {
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:crash-after-write:1' });
      const pending = await call<PendingData>('POST', `${STAGED}/${id}/apply`, {
        token: who.bob,
        headers: { prefer: 'wait=0', 'idempotency-key': `apply-${id}` },
      });
      expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
      await waitFor('the worker to die at its first link', () => workerPids().length === 0, 60_000);
      // Half-way: one link inserted, the others not yet.
      expect(await docs('bank_links', { org_id: books.orgId })).to.have.length(1);
    } finally {
      await s.killWorker();
      await s.startWorker();
    }

    let applied: StagedOperationData | null = null;
    await waitFor(
      'the apply to end on the new worker',
      async () => {
        const again = await call<StagedOperationData>('POST', `${STAGED}/${id}/apply`, {
          token: who.bob,
          headers: { prefer: 'wait=10', 'idempotency-key': `apply-${id}` },
        });
        if (again.status === 200 && again.body.data.status === 'applied') applied = again.body.data;
        return applied !== null;
      },
      120_000,
      1_000,
    );
    const links = await docs('bank_links', { org_id: books.orgId });
    const named = (applied!.result as unknown as { links: Array<{ link_id: string }> }).links.map((l) => l.link_id);
    expect(links.map((l) => l._id).sort()).to.deep.equal([...named].sort());
    expect(links.map((l) => [l.ledger_entry_id, l.amount_minor])).to.have.deep.members([
      [entries[0], 1_000],
      [entries[1], 2_000],
      [entries[2], 3_000],
    ]);
    expect(await locksOf(id)).to.equal(0);
  });
});
