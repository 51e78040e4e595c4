// The CLI's book reads (docs/reference/book-reads.md) as a user runs them: readable
// tables with amounts in their currency, --json for the envelope, --all to
// follow cursors.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { envelopeOf, runCli } from './run-cli.js';

describe('cli: bookstage book reads', function () {
  this.timeout(60_000);
  const books = new Books();
  const account = books.account({ opening_balance_minor: 10_000 });
  const { txn, entry } = books.linkedTxn(account, 12_345, {
    booking_date: '2026-02-01',
    counterparty_name: 'Acme GmbH',
  });
  const open = books.txn(account, -500, { booking_date: '2026-02-02' });
  const third = books.txn(account, 700, { booking_date: '2026-02-03' });
  books.doc({ extracted: { vendor_name: 'Papier AG', invoice_number: 'INV-9', total_minor: 1999, currency: 'EUR' } });
  let conn: { url: string; token: string };

  before(async () => {
    const s = await stack();
    await s.load(books.file);
    conn = { url: s.baseUrl, token: await s.token(books.orgId, ['books:read']) };
  });

  it('accounts list prints the book balance and the unreconciled count and sum with the currency', async () => {
    const run = await runCli(['accounts', 'list'], conn);
    expect(run.code, run.stderr).to.equal(0);
    // 10 000 + 12 345 − 500 + 700 = 22 545 minor units.
    expect(run.stdout).to.include(account).and.include('225.45 EUR').and.include('3 (+125.45 EUR)');
  });

  it('transactions list filters by status and --all follows every cursor; --json prints the envelope', async () => {
    const all = await runCli(['transactions', 'list', '--account', account, '--limit', '1', '--all', '--json'], conn);
    expect(all.code, all.stderr).to.equal(0);
    const pages = all.stdout
      .trim()
      .split('\n')
      .map((line) => envelopeOf<{ items: Array<{ id: string }> }>(line));
    expect(pages.flatMap((p) => p.data.items.map((i) => i.id))).to.deep.equal([txn, open, third]);
    const unlinked = await runCli(['transactions', 'list', '--account', account, '--link-state', 'unlinked'], conn);
    expect(unlinked.stdout).to.include(open).and.include(third).and.not.include(txn);
    expect(unlinked.stdout).to.include('-5.00 EUR');
  });

  it('show commands print one record with its links; an unknown id exits non-zero', async () => {
    const shown = await runCli(['transactions', 'show', txn], conn);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.include('Acme GmbH').and.include(entry).and.include('+123.45 EUR');
    const ent = await runCli(['entries', 'show', entry, '--json'], conn);
    expect(envelopeOf<{ open_amount_minor: number; linked_minor: number }>(ent.stdout).data).to.include({
      open_amount_minor: 12_345,
      linked_minor: 12_345,
    });
    const missing = await runCli(['entries', 'show', 'le_missing'], conn);
    expect(missing.code).to.not.equal(0);
  });

  it('counterparties and documents list their rows', async () => {
    const cps = await runCli(['counterparties', 'list', '--account', account], conn);
    expect(cps.code, cps.stderr).to.equal(0);
    expect(cps.stdout).to.include(books.cp('a'));
    // Amounts in the account's currency, which each row names.
    const row = cps.stdout.split('\n').find((line) => line.includes(books.cp('a')))!;
    expect(row, cps.stdout)
      .to.match(/\d\.\d\d EUR/)
      .and.not.include('minor units');
    const docs = await runCli(['documents', 'list', '--status', 'open'], conn);
    expect(docs.stdout).to.include('Papier AG').and.include('19.99 EUR');
  });

  it('ledger trial-balance prints each account with its debit, credit and balance as of the day', async () => {
    const run = await runCli(['ledger', 'trial-balance', '--as-of', '2026-02-02'], conn);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('Trial balance as of 2026-02-02');
    const rows = run.stdout.split('\n').filter((line) => /^\s*(1200|SUSPENSE)\s/.test(line));
    // 1200 (no chart, so no name): opening 100.00 on 2026-01-31, +123.45 linked, −5.00 unlinked (on SUSPENSE).
    expect(rows.map((line) => line.trim().split(/\s{2,}/))).to.deep.equal([
      ['1200', '223.45 EUR', '5.00 EUR', '218.45 EUR'],
      ['SUSPENSE', 'Suspense', '5.00 EUR', '0.00 EUR', '5.00 EUR'],
    ]);
    const json = await runCli(['ledger', 'trial-balance', '--json'], conn);
    const data = envelopeOf<{ as_of: string; items: Array<{ account: string }> }>(json.stdout.trim()).data;
    expect(data.as_of).to.equal(new Date().toISOString().slice(0, 10));
  });

  it("books export prints the file itself, byte for byte the API's; a bad format exits non-zero with the code", async () => {
    const run = await runCli(['books', 'export', '--format', 'beancount', '--through', '2026-02-02'], conn);
    expect(run.code, run.stderr).to.equal(0);
    const s = await stack();
    const api = await fetch(`${s.baseUrl}/api/v1/cli/books/export?format=beancount&through=2026-02-02`, {
      headers: { authorization: `Bearer ${conn.token}` },
    });
    expect(run.stdout).to.equal(await api.text());
    expect(run.stdout.split('\n')[0]).to.equal(`; bookstage books of ${books.orgId}, through 2026-02-02`);
    const bad = await runCli(['books', 'export', '--format', 'ledger'], conn);
    expect(bad.code).to.not.equal(0);
    expect(bad.stdout + bad.stderr).to.include('validation_failed');
  });

  it('ledger-accounts list prints the chart by code with inactive ones marked; --all --json follows the cursors', async () => {
    const s = await stack();
    const charted = new Books();
    charted.invoice(100);
    charted.file.accounts = [
      { code: '8400', name: 'Revenue', type: 'income', active: true },
      { code: '1600', name: 'Trade payables', type: 'liability', active: true },
      { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
      { code: '4980', name: 'Office supplies (closed)', type: 'expense', active: false },
    ];
    await s.load(charted.file);
    const own = { url: s.baseUrl, token: await s.token(charted.orgId, ['books:read']) };
    const table = await runCli(['ledger-accounts', 'list'], own);
    expect(table.code, table.stderr).to.equal(0);
    const rows = table.stdout.split('\n').filter((line) => /^\s*\d{4}\s/.test(line));
    expect(rows.map((line) => line.trim().split(/\s{2,}/))).to.deep.equal([
      ['1400', 'Trade receivables', 'asset', 'yes'],
      ['1600', 'Trade payables', 'liability', 'yes'],
      ['4980', 'Office supplies (closed)', 'expense', 'no'],
      ['8400', 'Revenue', 'income', 'yes'],
    ]);
    const all = await runCli(['ledger-accounts', 'list', '--limit', '3', '--all', '--json'], own);
    expect(all.code, all.stderr).to.equal(0);
    const pages = all.stdout
      .trim()
      .split('\n')
      .map((line) => envelopeOf<{ items: Array<{ code: string; active: boolean }> }>(line));
    expect(pages.map((p) => p.data.items.map((a) => `${a.code}:${a.active}`))).to.deep.equal([
      ['1400:true', '1600:true', '4980:false'],
      ['8400:true'],
    ]);
    const none = await runCli(['ledger-accounts', 'list'], conn);
    expect(none.stdout).to.include('No chart of accounts');
  });
});
