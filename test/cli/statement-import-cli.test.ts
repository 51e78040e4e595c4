// `bookstage statements import` on the real stack (docs/guide/statement-import.md
// "CLI, MCP, review page"): the sample CSV with its mapping as flags, a dry run
// printing the new entries table, then the real import, approve, apply, and
// the transactions listed by `bookstage transactions list`.
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { actors, docs } from '../helpers/staged.js';
import { envelopeOf, runCli } from './run-cli.js';

// This file runs as dist/test/cli/…; the samples are in the repository's examples/.
const SAMPLE_CSV = fileURLToPath(new URL('../../../examples/statements/bank-export.csv', import.meta.url));

/** The sample's mapping as CLI flags (docs/guide/statement-import.md "Samples"). */
const SAMPLE_FLAGS = [
  '--date-column',
  'Buchungstag',
  '--value-date-column',
  'Valuta',
  '--counterparty-column',
  'Empfänger/Auftraggeber',
  '--iban-column',
  'IBAN',
  '--remittance-column',
  'Verwendungszweck',
  '--amount-column',
  'Betrag',
  '--currency-column',
  'Währung',
  '--date-format',
  'DD.MM.YYYY',
  '--decimal-separator',
  ',',
  '--delimiter',
  ';',
  '--skip-rows',
  '3',
];

async function demoAccount() {
  const books = new Books();
  const account = books.account({
    iban: 'DE89370400440532013000',
    account_number: '0532013000',
    opening_balance_minor: 1_000_00,
  });
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  const reader = await s.token(books.orgId, ['books:read']);
  return { books, account, who, url: s.baseUrl, reader };
}

describe('bookstage statements import', function () {
  this.timeout(90_000);

  it('--dry-run on the sample CSV prints the four new entries as a table and stores nothing', async () => {
    const { books, account, who, url } = await demoAccount();
    const run = await runCli(['statements', 'import', SAMPLE_CSV, '--account', account, ...SAMPLE_FLAGS, '--dry-run'], {
      url,
      token: who.alice,
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(
      /^Dry run: nothing was staged or stored\. Staging now would stage this statement import for review\./,
    );
    expect(run.stdout).to.include(`Imports a csv statement into bank account ${account}`);
    expect(run.stdout).to.include('New transactions (4):');
    expect(run.stdout).to.include('+1,234.56 EUR').and.include('Schmidt & Partner').and.include('Rechnung 2026-061');
    expect(run.stdout).to.include('-89.00 EUR').and.include('Stadtwerke München');
    // Two identical coffee purchases, both new.
    expect(
      run.stdout.split('\n').filter((line) => line.includes('-4.50 EUR') && line.includes('Getränke Kühn')),
    ).to.have.length(2);
    expect(run.stdout).to.include('Stage it: run the same command without --dry-run.');
    expect(await docs('staged_operations', { org_id: books.orgId })).to.have.length(0);
  });

  it('the real import, approved and applied, puts the entries on the account: transactions list shows them', async () => {
    const { account, who, url, reader } = await demoAccount();
    const staged = await runCli(['statements', 'import', SAMPLE_CSV, '--account', account, ...SAMPLE_FLAGS, '--json'], {
      url,
      token: who.alice,
    });
    expect(staged.code, staged.stderr).to.equal(0);
    const env = envelopeOf<{
      outcome: string;
      staged_operation_id: string;
      plan: { new_transactions: { id: string }[] };
    }>(staged.stdout);
    expect(env.data.outcome).to.equal('staged');
    const id = env.data.staged_operation_id;
    const approved = await runCli(['staged', 'approve', id], { url, token: who.bob });
    expect(approved.code, approved.stderr).to.equal(0);
    const applied = await runCli(['staged', 'apply', id, '--json'], { url, token: who.bob });
    expect(applied.code, applied.stderr).to.equal(0);
    expect(envelopeOf<{ status: string }>(applied.stdout).data.status).to.equal('applied');

    const list = await runCli(['transactions', 'list', '--account', account, '--json'], { url, token: reader });
    expect(list.code, list.stderr).to.equal(0);
    const ids = envelopeOf<{ items: { id: string }[] }>(list.stdout)
      .data.items.map((t) => t.id)
      .sort();
    expect(ids).to.deep.equal(env.data.plan.new_transactions.map((t) => t.id).sort());
    const table = await runCli(['transactions', 'list', '--account', account], { url, token: reader });
    expect(table.stdout).to.include('+1,234.56 EUR').and.include('-89.00 EUR');

    // The same file again: nothing new.
    const again = await runCli(['statements', 'import', SAMPLE_CSV, '--account', account, ...SAMPLE_FLAGS], {
      url,
      token: who.alice,
    });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('Nothing to do').and.include('Skipped (4):');
  });

  it('mapping set saves the flags on the account, mapping show prints them, and an import without flags uses them', async () => {
    const { account, who, url, reader } = await demoAccount();
    const none = await runCli(['statements', 'mapping', 'show', '--account', account], { url, token: reader });
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stdout).to.include(`No CSV mapping saved for bank account ${account}`);
    const set = await runCli(['statements', 'mapping', 'set', '--account', account, ...SAMPLE_FLAGS, '--json'], {
      url,
      token: who.alice,
    });
    expect(set.code, set.stderr).to.equal(0);
    expect(envelopeOf<{ csv_mapping: Record<string, unknown> }>(set.stdout).data.csv_mapping).to.include({
      date_column: 'Buchungstag',
      delimiter: ';',
      skip_rows: 3,
      header: true,
    });
    const shown = await runCli(['statements', 'mapping', 'show', '--account', account], { url, token: reader });
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout)
      .to.include(`CSV mapping of bank account ${account}`)
      .and.include('--date-column "Buchungstag"')
      .and.include('--skip-rows 3');
    const dry = await runCli(
      ['statements', 'import', SAMPLE_CSV, '--account', account, '--format', 'csv', '--dry-run'],
      { url, token: who.alice },
    );
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.include('New transactions (4):');
    const bad = await runCli(
      ['statements', 'mapping', 'set', '--account', account, '--date-column', 'd', '--skip-rows', 'many'],
      { url, token: who.alice },
    );
    expect(bad.code).to.not.equal(0);
    expect(bad.stdout + bad.stderr).to.include('validation_failed');
  });
});
