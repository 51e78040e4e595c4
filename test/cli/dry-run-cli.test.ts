// `--dry-run` on every stage command of the CLI (docs/guide/cli.md): the plan
// printed readably (or the envelope with --json), nothing staged.
import { expect } from 'chai';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';
import { envelopeOf, runCli } from './run-cli.js';

/** Account (opening 100.00 EUR) with t1 +120.00 EUR linked to e1, and t2 +40.00 EUR of counterparty a unlinked beside the open e2 of 40.00 EUR. */
async function loaded() {
  const books = new Books();
  const account = books.account({ opening_balance_minor: 10_000 });
  const t1 = books.linkedTxn(account, 12_000, { booking_date: '2026-02-10' });
  books.invoice(4_000, { entry_date: '2026-02-15' });
  books.txn(account, 4_000, { booking_date: '2026-03-05' });
  const s = await stack();
  await s.load(books.file);
  return { books, account, t1, conn: { url: s.baseUrl, token: await s.token(books.orgId, [...TOKEN_SCOPES]) } };
}

async function stored(orgId: string): Promise<number[]> {
  const { db } = await stack();
  return Promise.all(
    ['staged_operations', 'staged_operation_bodies', 'scope_locks', 'job_results', 'idempotency_keys'].map((c) =>
      db.collection(c).countDocuments({ org_id: orgId }),
    ),
  );
}

describe('bookstage --dry-run', function () {
  this.timeout(60_000);

  it('reconcile stage --dry-run prints the plan and its summary, says nothing was staged, and stores nothing (exit 0)', async () => {
    const { books, account, t1, conn } = await loaded();
    const run = await runCli(
      [
        'reconcile',
        'stage',
        '--bank-account',
        account,
        '--end-date',
        '2026-02-28',
        '--closing-balance',
        '22000',
        '--currency',
        'EUR',
        '--transactions',
        t1.txn,
        '--dry-run',
      ],
      conn,
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(
      /^Dry run: nothing was staged or stored\. Staging now would stage this bank reconciliation for review\./,
    );
    expect(run.stdout).to.include(
      'Summary: transactions 1, opening_balance_minor 10000, cleared_total_minor 12000, closing_balance_minor 22000, left_out 0',
    );
    expect(run.stdout).to.include('Opening 100.00 EUR + cleared +120.00 EUR = closing 220.00 EUR');
    expect(run.stdout).to.include('Stage it: run the same command without --dry-run.');
    expect(run.stderr).to.equal('');
    expect(await stored(books.orgId)).to.deep.equal([0, 0, 0, 0, 0]);
  });

  it('links repair --dry-run --json prints the dry run envelope; the real command then stages the same plan_hash', async () => {
    const { books, account, conn } = await loaded();
    const args = [
      'links',
      'repair',
      '--bank-account',
      account,
      '--counterparty',
      books.cp('a'),
      '--as-of',
      '2026-03-31',
      '--json',
    ];
    const dry = await runCli([...args, '--dry-run'], conn);
    expect(dry.code, dry.stderr).to.equal(0);
    const env = envelopeOf<{ dry_run: boolean; outcome: string; plan_hash: string; blockers: unknown[] }>(dry.stdout);
    expect(env.data).to.include({ dry_run: true, outcome: 'staged' });
    expect(env.data).to.not.have.property('staged_operation_id');
    expect(await stored(books.orgId)).to.deep.equal([0, 0, 0, 0, 0]);
    const real = await runCli(args, conn);
    expect(real.code, real.stderr).to.equal(0);
    expect(envelopeOf<{ plan_hash: string }>(real.stdout).data.plan_hash).to.equal(env.data.plan_hash);
  });

  it('ledger reverse --dry-run under a pending reversal prints the plan and the warning pending_operation naming it', async () => {
    const { t1, conn } = await loaded();
    const staged = await runCli(['ledger', 'reverse', t1.entry, '--reason', 'first', '--json'], conn);
    expect(staged.code, staged.stderr).to.equal(0);
    const holder = envelopeOf<{ staged_operation_id: string }>(staged.stdout).data.staged_operation_id;
    const run = await runCli(['ledger', 'reverse', t1.entry, '--reason', 'second', '--dry-run'], conn);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include(`Reverses ledger entry ${t1.entry}`);
    expect(run.stdout).to.include('(reason: second)');
    expect(run.stdout).to.include(
      `Warning pending_operation: Pending operation(s) ${holder} hold what this plan would lock`,
    );
  });

  it('a refused dry run exits as the real command does: 422 → 3', async () => {
    const { t1, conn } = await loaded();
    const run = await runCli(['ledger', 'reverse', t1.entry, '--reversal-date', '2000-01-01', '--dry-run'], conn);
    expect(run.code).to.equal(3);
    expect(run.stdout + run.stderr).to.include('reversal_before_entry');
  });

  it('review and apply commands take no --dry-run', async () => {
    const run = await runCli(['staged', 'approve', 'stg_x', '--dry-run'], {
      url: 'http://127.0.0.1:9',
      token: 'bst_x',
    });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include("unknown option '--dry-run'");
  });
});
