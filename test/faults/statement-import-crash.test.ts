// docs/guide/statement-import.md "Apply": a worker SIGKILLed in the middle of a
// statement import's apply journal (after its second insert) leaves nothing a
// new worker cannot finish, and every new transaction is inserted exactly once.
import { expect } from 'chai';
import type { PendingData, StagedOperationData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, approve, docs, STAGED } from '../helpers/staged.js';
import { waitFor, workerPids } from './fault-scenario.js';

interface ImportData { staged_operation_id: string; plan: { new_transactions: { id: string }[] } }

describe('statement import: SIGKILL during apply', function () {
  this.timeout(240_000);

  afterEach(async () => {
    const s = await stack();
    await s.killWorker();
    await s.startWorker();
  });

  it('a worker killed after the second insert of the journal: a new worker finishes the apply, each new transaction inserted once', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account({ iban: 'DE89370400440532013000' });
    await s.load(books.file);
    const who = await actors(books.orgId);
    const csv = 'date,amount,name\n2026-11-03,10.00,A\n2026-11-04,-2.00,B\n2026-11-05,3.00,C\n2026-11-05,3.00,C\n';
    const res = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${account}/statements/import/stage?date_column=date&amount_column=amount&counterparty_column=name`, {
      method: 'POST', headers: { authorization: `Bearer ${who.alice}`, 'content-type': 'text/csv', prefer: 'wait=30' }, body: csv,
    });
    const staged = (await res.json()) as { data: ImportData };
    expect(res.status, JSON.stringify(staged)).to.equal(201);
    const id = staged.data.staged_operation_id;
    const planned = staged.data.plan.new_transactions.map((t) => t.id).sort();
    expect(planned).to.have.length(4);
    expect((await approve(who.bob, id)).status).to.equal(200);

    await s.stopWorker();
    await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:crash-after-write:2' });
    const key = { 'idempotency-key': `apply-${id}` };
    const pending = await call<PendingData>('POST', `${STAGED}/${id}/apply`, { token: who.bob, headers: { prefer: 'wait=0', ...key } });
    expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
    await waitFor('the worker to die at apply:crash-after-write:2', () => workerPids().length === 0, 60_000);
    await s.killWorker();
    expect((await docs('bank_transactions', { org_id: books.orgId })).length, 'inserted before the crash').to.equal(2);

    await s.startWorker();
    let status = '';
    await waitFor('the apply to end on the new worker', async () => {
      const again = await call<StagedOperationData>('POST', `${STAGED}/${id}/apply`, { token: who.bob, headers: { prefer: 'wait=10', ...key } });
      status = again.status === 200 ? again.body.data.status : '';
      return status === 'applied';
    }, 120_000, 1_000);
    const stored = await docs('bank_transactions', { org_id: books.orgId });
    expect(stored.map((t) => t._id).sort()).to.deep.equal(planned);
    expect(stored.every((t) => t.version === 1 && t.status === 'unreconciled')).to.equal(true);
  });
});
