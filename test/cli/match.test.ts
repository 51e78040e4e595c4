// `bookstage match suggest|decline|stage` as a subprocess against the real stack
// (docs/reference/http-api.md §8.1, §8.2).
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { docs } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { envelopeOf, runCli } from './run-cli.js';

async function world() {
  const books = new Books();
  const account = books.account();
  const inv1 = books.invoice(12_000, { reference: 'INV-2026-0042' });
  const inv2 = books.invoice(18_000);
  const txn = books.txn(account, 30_000, { remittance_info: 'INV-2026-0042 and more' });
  const s = await stack();
  await s.load(books.file);
  const token = await s.token(books.orgId, ['books:read', 'bank:stage', 'staged:read'], 'alice');
  return { books, account, inv1, inv2, txn, url: s.baseUrl, token };
}

describe('bookstage match', function () {
  this.timeout(90_000);

  it('suggest prints the suggestions with their signals; decline leaves an entry out from then on', async () => {
    const w = await world();
    const run = await runCli(['match', 'suggest', w.txn], { url: w.url, token: w.token });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Left unlinked: 300.00 EUR; declined so far: 0');
    expect(run.stdout).to.include(`${w.inv1} (120.00 EUR) + ${w.inv2} (180.00 EUR)`);
    expect(run.stdout).to.include('INV-2026-0042 in the remittance text');

    const declined = await runCli(['match', 'decline', w.txn, '--entries', w.inv2], { url: w.url, token: w.token });
    expect(declined.code, declined.stderr).to.equal(0);
    expect(declined.stdout).to.equal(`Declined for ${w.txn}: 1 in all; never suggested for it again.\n`);
    const after = await runCli(['match', 'suggest', w.txn, '--json'], { url: w.url, token: w.token });
    const env = envelopeOf<{ suggestions: Array<{ entries: Array<{ id: string }> }>; declined: number }>(after.stdout);
    expect(env.data.declined).to.equal(1);
    expect(env.data.suggestions.map((s) => s.entries.map((e) => e.id))).to.deep.equal([[w.inv1]]);
  });

  it('stage takes --pair TRANSACTION:ENTRY:AMOUNT (repeated) and prints the pairs with open amounts before and after', async () => {
    const w = await world();
    const run = await runCli(
      [
        'match',
        'stage',
        '--bank-account',
        w.account,
        '--pair',
        `${w.txn}:${w.inv1}:12000`,
        '--pair',
        `${w.txn}:${w.inv2}:18000`,
      ],
      { url: w.url, token: w.token },
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Staged bank match stg_[0-9a-f]+\./);
    expect(run.stdout).to.include(`Links 2 pair(s) on bank account ${w.account}, 300.00 EUR in all`);
    expect(await docs('staged_operations', { org_id: w.books.orgId })).to.have.length(1);
  });

  it('a malformed --pair, or decline with neither or both of --entries and --document, is a usage error (exit 2)', async () => {
    const w = await world();
    const bad = await runCli(['match', 'stage', '--bank-account', w.account, '--pair', 'bt_1:le_1'], {
      url: w.url,
      token: w.token,
    });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('--pair must be TRANSACTION:ENTRY:AMOUNT_MINOR');
    expect((await runCli(['match', 'decline', w.txn], { url: w.url, token: w.token })).code).to.equal(2);
    expect(
      (
        await runCli(['match', 'decline', w.txn, '--entries', w.inv1, '--document', 'doc_1'], {
          url: w.url,
          token: w.token,
        })
      ).code,
    ).to.equal(2);
    expect(await docs('staged_operations', { org_id: w.books.orgId })).to.have.length(0);
  });
});
