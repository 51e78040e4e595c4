// `bookstage entries stage` run as a subprocess against the real stack: --line flags build the lines,
// the plan is printed with account names and totals, --json is the API's envelope, a bad --line is a
// usage error before anything is sent, and a refusal exits with its code.
import { expect } from 'chai';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { runCli } from './run-cli.js';
import { apply, approve } from '../helpers/staged.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

describe('bookstage entries stage (journal entry)', function () {
  this.timeout(60_000);
  const books = new Books();
  const account = books.account();
  const fee = books.txn(account, -350, { counterparty_id: books.cp('bank') });
  const receipt = books.doc();
  books.file.accounts = [
    { code: '1200', name: 'Bank', type: 'asset', active: true },
    { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
    { code: '1600', name: 'Trade payables', type: 'liability', active: true },
    { code: '6855', name: 'Bank fees', type: 'expense', active: true },
  ];
  let conn: { url: string; token: string };
  const flags = (reference: string): string[] => [
    'entries',
    'stage',
    '--date',
    '2026-03-02',
    '--description',
    'Bank fee March',
    '--reference',
    reference,
    '--counterparty',
    books.cp('bank'),
    '--currency',
    'EUR',
    '--line',
    '6855:350:0',
    '--line',
    '1600:0:350',
  ];

  before(async () => {
    const s = await stack();
    await s.load(books.file);
    conn = { url: s.baseUrl, token: await s.token(books.orgId, TOKEN_SCOPES as never) };
  });

  it('stages from --line flags and prints the entry with account names, totals, the transaction and the receipt', async () => {
    const run = await runCli(
      [...flags('FEE-2026-03'), '--bank-transaction', fee, '--document', receipt, '--note', 'March'],
      conn,
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Staged journal entry stg_[0-9a-f]+\./);
    expect(run.stdout).to.match(/Books ledger entry le_[0-9a-f]{24} on 2026-03-02: Bank fee March, ref FEE-2026-03/);
    expect(run.stdout).to.include('Bank fees').and.include('Trade payables').and.include('3.50 EUR');
    expect(run.stdout).to.include(`Books bank transaction ${fee} (-3.50 EUR): links it for 3.50 EUR`);
    expect(run.stdout).to.include(`Attaches inbox document ${receipt} (marked booked)`);

    // Approved and applied by another person: the document reads as booked by the entry.
    const opId = /Staged journal entry (stg_[0-9a-f]+)/.exec(run.stdout)![1]!;
    const entryId = /Books ledger entry (le_[0-9a-f]{24})/.exec(run.stdout)![1]!;
    const bob = await (await stack()).token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob');
    expect((await approve(bob, opId)).status).to.equal(200);
    expect((await apply(bob, opId)).status).to.equal(200);
    const shown = await runCli(['documents', 'show', receipt], conn);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.include('booked').and.include(`booked by ${entryId}`);
  });

  it('--json prints exactly the envelope the API answers for the same body', async () => {
    const run = await runCli([...flags('FEE-JSON'), '--idempotency-key', `je-${books.uid}`, '--json'], conn);
    expect(run.code, run.stderr).to.equal(0);
    const api = await call('POST', '/api/v1/cli/ledger/entries/stage', {
      token: conn.token,
      body: bankFeeEntry(books.cp('bank'), { reference: 'FEE-JSON' }),
      headers: { 'idempotency-key': `je-${books.uid}` },
    });
    expect(api.headers.get('idempotent-replayed')).to.equal('true');
    expect(run.stdout).to.equal(`${JSON.stringify(api.body)}\n`);
  });

  it('a --line that is not ACCOUNT:DEBIT:CREDIT is a usage error before anything is sent (exit 2)', async () => {
    for (const bad of ['6855:3.50:0', '6855:350', '6855:-1:0', ':350:0']) {
      const run = await runCli([...flags('FEE-BAD'), '--line', bad], conn);
      expect(run.code, bad).to.equal(2);
      expect(run.stderr, bad).to.include('--line must be ACCOUNT:DEBIT:CREDIT');
    }
  });

  it('an unbalanced entry is refused with its code (422 → exit 3)', async () => {
    const run = await runCli([...flags('FEE-UNBALANCED'), '--line', '6855:1:0'], conn);
    expect(run.code).to.equal(3);
    expect(run.stdout).to.include('unbalanced_entry (HTTP 422, not retryable)');
  });
});
