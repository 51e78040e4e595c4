// The corpus of real banks' files (test/fixtures/bank-statements/SOURCES.md) on the real stack: every
// file of one account (or a CSV, which names none) and one currency is imported as a dry run
// (?dry_run=true) into an account that the file names, and plans exactly the transactions its
// manifest lists; a file the MT940 library cannot read answers a reason this project writes.
import { expect } from 'chai';
import type { CsvMapping } from '../../shared/kinds/statement-import/csv.js';
import { Books } from '../helpers/books.js';
import type { AnswerBody } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors } from '../helpers/staged.js';
import { corpus, corpusBytes } from '../helpers/statement-corpus.js';

interface DryRun {
  dry_run: boolean;
  outcome: string;
  plan: { format: string; new_transactions: { booking_date: string; amount_minor: number }[] };
}

async function dryRun(
  token: string,
  accountId: string,
  body: Uint8Array,
  query = '',
): Promise<{ status: number; body: AnswerBody<DryRun> }> {
  const s = await stack();
  const res = await fetch(
    `${s.baseUrl}/api/v1/cli/bank-accounts/${accountId}/statements/import/stage?dry_run=true${query}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body,
    },
  );
  return { status: res.status, body: (await res.json()) as AnswerBody<DryRun> };
}

/** A CSV mapping as the import's query parameters. */
function csvQuery(mapping: CsvMapping): Record<string, string> {
  return Object.fromEntries(Object.entries(mapping).map(([k, v]) => [k, String(v)]));
}

describe('statement import: the corpus of real banks’ files through HTTP', () => {
  // The books hold an account number of at most 34 characters (as an IBAN); one file names a longer one.
  const single = corpus.filter(
    (f) =>
      (f.format === 'csv' ? f.accounts.length === 0 : f.accounts.length === 1 && f.accounts[0]!.length <= 34) &&
      f.currencies.length === 1,
  );

  it(`dry-runs each of the ${single.length} files of one account and currency into that account: every entry planned`, async () => {
    expect(single.length).to.be.at.least(40);
    const books = new Books();
    const accounts = single.map((f) =>
      books.account({ account_number: f.accounts[0] ?? null, currency: f.currencies[0]!, name: f.file }),
    );
    const s = await stack();
    await s.load(books.file);
    const { alice } = await actors(books.orgId);
    for (const [i, f] of single.entries()) {
      const query = f.csv === undefined ? '' : `&format=csv&${new URLSearchParams(csvQuery(f.csv)).toString()}`;
      const res = await dryRun(alice, accounts[i]!, corpusBytes(f.file), query);
      expect(res.status, `${f.file}: ${JSON.stringify(res.body)}`).to.equal(200);
      expect(res.body.data, f.file).to.include({ dry_run: true, outcome: 'staged' });
      const planned = res.body.data.plan.new_transactions;
      expect(res.body.data.plan.format, f.file).to.equal(f.format);
      expect(planned, f.file).to.have.length(f.entries);
      expect(
        planned.reduce((sum, t) => sum + t.amount_minor, 0),
        f.file,
      ).to.equal(f.sum_minor);
    }
  });

  it('imports the second STMTRS of one STMTTRNRS (Banco do Brasil) into its account, the first left out with a warning', async () => {
    const books = new Books();
    const account = books.account({ account_number: '655000-2', currency: 'BRL' });
    const s = await stack();
    await s.load(books.file);
    const { alice } = await actors(books.orgId);
    const res = await dryRun(alice, account, corpusBytes('ofx/ofxparser-bb-two-stmtrs.ofx'));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const planned = res.body.data.plan.new_transactions;
    expect(planned).to.have.length(36);
    expect(planned.reduce((sum, t) => sum + t.amount_minor, 0)).to.equal(-364_866);
    expect(res.body.warnings.map((w) => w.code)).to.include('other_account_statements_left_out');
  });

  it('answers 422 unreadable_statement with a reason this project writes when the MT940 library fails inside', async () => {
    const books = new Books();
    const account = books.account({ account_number: 'NL1' });
    const s = await stack();
    await s.load(books.file);
    const { alice } = await actors(books.orgId);
    // A :25: before the first :20: makes the library dereference a statement it never started.
    const file = ':25:NL1\n:20:X\n:28C:1\n:60F:C261101EUR0,00\n:62F:C261101EUR0,00\n';
    const res = await dryRun(alice, account, new TextEncoder().encode(file));
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error?.code).to.equal('unreadable_statement');
    expect(res.body.error?.details).to.deep.equal({
      format: 'mt940',
      location: 'line 1',
      reason: 'the file is not laid out as MT940 statements (:20:, :25:, :28C:, :60F:, :61:/:86: lines, :62F:)',
    });
    expect(JSON.stringify(res.body)).to.not.match(/Cannot read properties|undefined|null \(reading/);
  });
});
