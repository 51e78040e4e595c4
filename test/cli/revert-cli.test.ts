// bookstage staged revert (docs/guide/cli.md; docs/design/staged-lifecycle.md
// "Reverts"): the CLI stages the revert of an applied operation and shows what
// comes back record by record; a refusal exits 3 with the API's code.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { apply, approve } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { envelopeOf, runCli } from './run-cli.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

async function applied(bob: string, staging: Promise<{ status: number; body: unknown }>): Promise<string> {
  const staged = await staging;
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = (staged.body as { data: { staged_operation_id: string } }).data.staged_operation_id;
  expect((await approve(bob, id)).status).to.equal(200);
  expect((await apply(bob, id)).status).to.equal(200);
  return id;
}

describe('bookstage staged revert', () => {
  it('stages the revert of an applied reconciliation, shown record by record; a reversal exits 3 not_revertible', async () => {
    const books = new Books();
    const account = books.account({ opening_balance_minor: 0 });
    const paid = books.linkedTxn(account, 2_500, { booking_date: '2026-02-03' });
    const other = books.linkedTxn(books.account(), 900, { counterparty_id: books.cp('b') });
    const s = await stack();
    await s.load(books.file);
    const alice = await s.token(books.orgId, ['bank:stage', 'ledger:stage', 'staged:read'], 'alice');
    const bob = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');
    const reconciled = await applied(
      bob,
      call('POST', '/api/v1/cli/bank-matches/reconcile/stage', {
        token: alice,
        body: {
          bank_account_id: account,
          statement: { end_date: '2026-02-28', closing_balance_minor: 2_500, currency: 'EUR' },
          transaction_ids: [paid.txn],
        },
      }),
    );

    const run = await runCli(['staged', 'revert', reconciled, '--note', 'wrong statement'], {
      url: s.baseUrl,
      token: alice,
    });
    expect(run.code, run.stdout + run.stderr).to.equal(0);
    expect(run.stdout).to.match(/Staged revert stg_/);
    expect(run.stdout).to.include(`Reverts bank_reconcile ${reconciled}: 2 records written back`);
    expect(run.stdout).to.include(`bank_accounts/${account}`);
    expect(run.stdout).to.include(`bank_transactions/${paid.txn}`);

    const json = await runCli(['staged', 'revert', reconciled, '--dry-run', '--json'], {
      url: s.baseUrl,
      token: alice,
    });
    expect(json.code, json.stderr).to.equal(0);
    const dry = envelopeOf<{ dry_run: boolean; plan: { reverts: string; changes: unknown[] } }>(json.stdout);
    expect(dry.data).to.include({ dry_run: true });
    expect(dry.data.plan.reverts).to.equal(reconciled);
    expect(dry.data.plan.changes).to.have.length(2);

    const reversal = await applied(
      bob,
      call('POST', `/api/v1/cli/ledger/entries/${other.entry}/reverse/stage`, {
        token: alice,
        body: { reversal_date: '2026-03-01' },
      }),
    );
    const refused = await runCli(['staged', 'revert', reversal], { url: s.baseUrl, token: alice });
    expect(refused.code).to.equal(3);
    expect(refused.stdout + refused.stderr).to.include('not_revertible');
  });

  it("--reversal-date dates the reversing entry of a journal entry's revert", async () => {
    const books = new Books();
    books.account();
    const s = await stack();
    await s.load(books.file);
    const alice = await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'alice');
    const bob = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');
    const entry = await applied(
      bob,
      call('POST', '/api/v1/cli/ledger/entries/stage', {
        token: alice,
        body: bankFeeEntry(books.cp('bank')),
      }),
    );
    const json = await runCli(['staged', 'revert', entry, '--reversal-date', '2026-04-01', '--dry-run', '--json'], {
      url: s.baseUrl,
      token: alice,
    });
    expect(json.code, json.stdout + json.stderr).to.equal(0);
    const dry = envelopeOf<{ plan: { changes: Array<{ action: string; doc?: { entry_date: string } }> } }>(json.stdout);
    expect(dry.data.plan.changes.find((c) => c.action === 'insert')!.doc!.entry_date).to.equal('2026-04-01');
  });
});
