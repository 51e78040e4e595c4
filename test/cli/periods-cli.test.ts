// `bookstage periods close|list|show` as a subprocess against the real stack
// (docs/guide/cli.md "Commands"; docs/design/staged-lifecycle.md "Closing a period").
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { apply, approve, docs } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { runCli } from './run-cli.js';

describe('bookstage periods', function () {
  this.timeout(90_000);

  it('close stages a period close and prints its plan; a through on the lock date exits 3 with invalid_period; list and show print the closed period, intact', async () => {
    const books = new Books({ lock_date: '2025-12-31' });
    const account = books.account();
    const entry = books.invoice(5_000, { entry_date: '2026-01-15' });
    books.link(books.txn(account, 5_000, { booking_date: '2026-01-20' }), entry, 5_000);
    const s = await stack();
    await s.load(books.file);
    const env = { url: s.baseUrl, token: await s.token(books.orgId, ['policy:stage', 'books:read'], 'carla') };
    const bob = await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');

    const refused = await runCli(['periods', 'close', '--through', '2025-12-31'], env);
    expect(refused.code).to.equal(3);
    expect(refused.stdout + refused.stderr).to.include('invalid_period');

    const run = await runCli(['periods', 'close', '--through', '2026-01-31', '--note', 'January'], env);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Staged period close stg_[0-9a-f]+\./);
    expect(run.stdout).to.include('Closes every day through 2026-01-31 (lock date now 2025-12-31) (note: January)');
    expect(run.stdout).to.include('In the period: 1 ledger entries, 1 bank transactions');
    const [staged] = await docs('staged_operations', { org_id: books.orgId });
    const id = String(staged!._id);
    expect((await approve(bob, id)).status).to.equal(200);
    expect((await apply(bob, id)).status).to.equal(200);

    const list = await runCli(['periods', 'list'], env);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout).to.match(/2026-01-31 .* bob .* stg_[0-9a-f]+/);
    const show = await runCli(['periods', 'show', '2026-01-31'], env);
    expect(show.code, show.stderr).to.equal(0);
    expect(show.stdout).to.include('Period through 2026-01-31');
    expect(show.stdout).to.include('intact: no record of the period changed since it was closed');
    const missing = await runCli(['periods', 'show', '2026-02-28'], env);
    expect(missing.code).to.equal(4);
  });
});
