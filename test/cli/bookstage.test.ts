// The bookstage CLI run as a subprocess against the real stack: what a person
// reads, what an agent parses (--json is the API's envelope, exactly), and
// the exit code of every kind of answer.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { TOKEN_SCOPES } from '../../shared/domain/token-scopes.js';
import type {
  DuplicatesPageData,
  PendingData,
  ReversalData,
  StagedListData,
  StagedOperationData,
} from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { apiWithOwnRedis, type OwnRedisApi } from '../helpers/own-redis-api.js';
import { stack } from '../helpers/stack.js';
import { startDropProxy } from './drop-proxy.js';
import { envelopeOf, runCli } from './run-cli.js';
import { countStagedWithPlan } from '../helpers/staged.js';

async function loaded(books: Books, scopes: readonly string[] = TOKEN_SCOPES): Promise<{ url: string; token: string }> {
  const s = await stack();
  await s.load(books.file);
  return { url: s.baseUrl, token: await s.token(books.orgId, scopes as never) };
}

/** An entry of 75.00 EUR linked to one unreconciled bank transaction. */
function reversible(): { books: Books; entry: string; link: string } {
  const books = new Books();
  const account = books.account();
  const entry = books.invoice(7_500);
  const link = books.link(books.txn(account, 7_500), entry, 7_500);
  return { books, entry, link };
}

describe('bookstage CLI', function () {
  this.timeout(60_000);

  describe('ledger reverse', () => {
    it('stages a reversal and prints the plan with amounts in their currency (exit 0)', async () => {
      const { books, entry, link } = reversible();
      const conn = await loaded(books);
      const run = await runCli(
        ['ledger', 'reverse', entry, '--reversal-date', '2026-03-01', '--reason', 'booked twice'],
        conn,
      );
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^Staged ledger reversal stg_[0-9a-f]+\./);
      expect(run.stdout).to.include(`Reverses ledger entry ${entry} on 2026-03-01 (reason: booked twice)`);
      expect(run.stdout).to.include('75.00 EUR');
      expect(run.stdout).to.include(link);
      expect(run.stdout).to.not.include('\u001b['); // no colours into a pipe
      expect(await countStagedWithPlan({ ledger_entry_id: entry })).to.equal(1);
    });

    it('a reader that closes the output early (`| head`): the reversal is staged, exit 0, no stack trace', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      const run = await runCli(['ledger', 'reverse', entry, '--reason', 'booked twice'], {
        ...conn,
        closeStdout: true,
      });
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      expect(await countStagedWithPlan({ ledger_entry_id: entry })).to.equal(1);
    });

    it('--json prints exactly the envelope the API answers', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      const run = await runCli(
        ['ledger', 'reverse', entry, '--reason', 'r', '--idempotency-key', `json-${entry}`, '--json'],
        conn,
      );
      expect(run.code, run.stderr).to.equal(0);
      // The same key and body replay the stored answer, byte for byte.
      const api = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
        token: conn.token,
        body: { reason: 'r' },
        headers: { 'idempotency-key': `json-${entry}` },
      });
      expect(api.status).to.equal(201);
      expect(api.headers.get('idempotent-replayed')).to.equal('true');
      expect(JSON.parse(run.stdout)).to.deep.equal(api.body);
      expect(run.stdout).to.equal(`${JSON.stringify(api.body)}\n`);
    });

    it('a refusal is printed with its code and details (409 → exit 3)', async () => {
      const { books, entry } = reversible();
      const reversal = books.invoice(-7_500, { reversal_of: entry });
      books.file.ledger_entries[0]!.status = 'reversed';
      books.file.ledger_entries[0]!.reversed_by = reversal;
      const conn = await loaded(books);
      const run = await runCli(['ledger', 'reverse', entry], conn);
      expect(run.code).to.equal(3);
      expect(run.stdout).to.include('already_reversed (HTTP 409, not retryable)');
      expect(run.stdout).to.include(`reversed_by: ${reversal}`);
      expect(run.stdout).to.match(/request id \S+/);
    });

    it('an unknown entry is exit 4', async () => {
      const { books } = reversible();
      const conn = await loaded(books);
      const run = await runCli(['ledger', 'reverse', 'le_does_not_exist'], conn);
      expect(run.code).to.equal(4);
      expect(run.stdout).to.include('not_found');
    });

    it('a 400 names each problem with its pointer (exit 2)', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      const run = await runCli(['ledger', 'reverse', entry, '--reversal-date', '2026-02-30'], conn);
      expect(run.code).to.equal(2);
      expect(run.stdout).to.include('/reversal_date: must be a real calendar date YYYY-MM-DD');
    });

    it('a retry after a dropped connection reuses the Idempotency-Key and stages once', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      const proxy = await startDropProxy(new URL(conn.url));
      try {
        const run = await runCli(['ledger', 'reverse', entry, '--reason', 'dropped'], { ...conn, url: proxy.url });
        expect(run.code, run.stderr).to.equal(0);
        expect(proxy.connections()).to.equal(2);
        expect(run.stderr).to.match(/retry 1\/3 .*same Idempotency-Key bookstage-cli-/);
        expect(run.stdout).to.match(/^Staged ledger reversal stg_/);
        expect(await countStagedWithPlan({ ledger_entry_id: entry })).to.equal(1);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('reconcile stage', () => {
    it('reads the whole body from stdin (--body -) and prints the balances', async () => {
      const books = new Books();
      const account = books.account({ opening_balance_minor: 10_000 });
      const a = books.linkedTxn(account, 56_000);
      const b = books.linkedTxn(account, -6_000, { booking_date: '2026-02-12' });
      const conn = await loaded(books);
      const body = {
        bank_account_id: account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 60_000, currency: 'EUR', reference: 'ST-2' },
        transaction_ids: [a.txn, b.txn],
      };
      const run = await runCli(['reconcile', 'stage', '--body', '-'], { ...conn, stdin: JSON.stringify(body) });
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^Staged bank reconciliation stg_/);
      expect(run.stdout).to.include('Opening 100.00 EUR + cleared +500.00 EUR = closing 600.00 EUR');
      expect(run.stdout).to.include(a.txn);
      expect(run.stdout).to.include('-60.00 EUR');
    });

    it('builds the body from kebab-case flags; a statement that does not add up is 422 (exit 3)', async () => {
      const books = new Books();
      const account = books.account();
      const a = books.linkedTxn(account, 56_000);
      const conn = await loaded(books);
      const run = await runCli(
        [
          'reconcile',
          'stage',
          '--bank-account',
          account,
          '--end-date',
          '2026-02-28',
          '--closing-balance',
          '56001',
          '--currency',
          'EUR',
          '--transactions',
          a.txn,
        ],
        conn,
      );
      expect(run.code).to.equal(3);
      expect(run.stdout).to.include('out_of_balance (HTTP 422');
      expect(run.stdout).to.include('difference_minor: 1');
    });

    it('a non-integer amount is a usage error before anything is sent (exit 2)', async () => {
      const run = await runCli(['reconcile', 'stage', '--closing-balance', '560.00'], {
        url: 'http://127.0.0.1:9',
        token: 't',
      });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.include('--closing-balance must be an integer');
    });
  });

  describe('links repair', () => {
    it('a noop plan is exit 0', async () => {
      const books = new Books();
      const account = books.account();
      books.linkedTxn(account, 5_000);
      const conn = await loaded(books);
      const run = await runCli(
        ['links', 'repair', '--bank-account', account, '--counterparty', books.cp('a'), '--as-of', '2026-12-31'],
        conn,
      );
      expect(run.code, run.stdout).to.equal(0);
      expect(run.stdout).to.include('Nothing to do');
    });

    it('a blocked plan lists its blockers (exit 3)', async () => {
      const books = new Books();
      const account = books.account();
      books.invoice(5_000, { counterparty_id: books.cp('a') });
      const usd = books.txn(account, 5_000, { currency: 'USD' });
      const conn = await loaded(books);
      const run = await runCli(
        ['links', 'repair', '--bank-account', account, '--counterparty', books.cp('a'), '--as-of', '2026-12-31'],
        conn,
      );
      expect(run.code).to.equal(3);
      expect(run.stdout).to.include('Blocked');
      expect(run.stdout).to.match(new RegExp(`currency_mismatch\\s+.*${usd}`));
    });

    it('stages a FIFO move and lists the action', async () => {
      const books = new Books();
      const account = books.account();
      const older = books.invoice(4_000, { entry_date: '2026-01-05' });
      const newer = books.invoice(4_000, { entry_date: '2026-01-20' });
      const txn = books.txn(account, 4_000);
      books.link(txn, newer, 4_000);
      const conn = await loaded(books);
      const run = await runCli(
        ['links', 'repair', '--bank-account', account, '--counterparty', books.cp('a'), '--as-of', '2026-12-31'],
        conn,
      );
      expect(run.code, run.stdout).to.equal(0);
      expect(run.stdout).to.match(/^Staged link repair stg_/);
      expect(run.stdout).to.match(new RegExp(`move\\s+${txn}\\s+\\S+\\s+${newer}\\s+${older}\\s+4,000 minor units`));
    });
  });

  describe('pending jobs', () => {
    it('--wait 0 answers pending (exit 6) with the job id; jobs show --follow prints the plan (exit 0)', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      // `wait=0` answers 202 unless the answer is already there (docs/reference/http-api.md §6.4): with no
      // worker running, the job cannot have finished by the time the API looks.
      const s = await stack();
      await s.stopWorker();
      let pending: Awaited<ReturnType<typeof runCli>>;
      try {
        pending = await runCli(['ledger', 'reverse', entry, '--wait', '0', '--json'], conn);
      } finally {
        await s.startWorker();
      }
      expect(pending.code).to.equal(6);
      const envelope = envelopeOf<PendingData>(pending.stdout);
      expect(envelope.data.outcome).to.equal('pending');
      const followed = await runCli(['jobs', 'show', envelope.data.job_id, '--follow'], conn);
      expect(followed.code, followed.stderr).to.equal(0);
      expect(followed.stdout).to.match(/^Staged ledger reversal stg_/);
      expect(followed.stdout).to.include(entry);
    });

    it('--wait 0 --follow stages in one command', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books);
      const run = await runCli(['ledger', 'reverse', entry, '--wait', '0', '--follow'], conn);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^Staged ledger reversal stg_/);
    });

    it('jobs show of an unknown job is exit 4', async () => {
      const { books } = reversible();
      const conn = await loaded(books);
      const run = await runCli(['jobs', 'show', 'job_unknown'], conn);
      expect(run.code).to.equal(4);
    });
  });

  describe('inbox duplicates', () => {
    function inbox(): { books: Books; docs: string[] } {
      const books = new Books();
      const docs: string[] = [];
      for (const [i, sha] of ['aa', 'aa', 'bb', 'bb'].entries()) {
        docs.push(
          books.doc({
            received_at: `2026-02-0${i + 1}T09:00:00.000Z`,
            file: { sha256: sha.repeat(32), name: `${i}.pdf`, size: 1, mime: 'application/pdf' },
          }),
        );
      }
      return { books, docs };
    }

    it('prints each group with its documents and reasons', async () => {
      const { books, docs } = inbox();
      const conn = await loaded(books);
      const run = await runCli(['inbox', 'duplicates'], conn);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/grp_[0-9a-f]{16}\s+confidence 1\.00\s+2 documents/);
      for (const d of docs) expect(run.stdout).to.include(d);
      expect(run.stdout).to.include(`same_file with ${docs[0]} (1.00)`);
    });

    it("--limit 1 --all walks every page; --json prints one envelope per page, each equal to the API's", async () => {
      const { books, docs } = inbox();
      const conn = await loaded(books);
      const readable = await runCli(['inbox', 'duplicates', '--limit', '1', '--all'], conn);
      expect(readable.code).to.equal(0);
      expect(readable.stdout.match(/grp_[0-9a-f]{16}/g)).to.have.length(2);
      for (const d of docs) expect(readable.stdout).to.include(d);

      const json = await runCli(['inbox', 'duplicates', '--limit', '1', '--all', '--json'], conn);
      const pages = json.stdout
        .trim()
        .split('\n')
        .map((l) => envelopeOf<DuplicatesPageData>(l));
      expect(pages).to.have.length(2);
      const first = await call('GET', '/api/v1/cli/bookkeeping/inbox/duplicates?limit=1', { token: conn.token });
      expect({ ...pages[0], request_id: null }).to.deep.equal({ ...first.body, request_id: null });
      expect(pages[1]!.data.next_cursor).to.equal(null);
    });

    it('one page with --limit says how to get the next', async () => {
      const { books } = inbox();
      const conn = await loaded(books);
      const run = await runCli(['inbox', 'duplicates', '--limit', '1'], conn);
      expect(run.stdout.match(/grp_[0-9a-f]{16}/g)).to.have.length(1);
      expect(run.stdout).to.match(/More: add --cursor \S+ \(or --all\)/);
    });
  });

  describe('auth and configuration', () => {
    it('an unknown token is exit 5; so is a token without the scope (403)', async () => {
      const { books, entry } = reversible();
      const conn = await loaded(books, ['inbox:read']);
      const bad = await runCli(['inbox', 'duplicates'], { ...conn, token: 'bst_unknown' });
      expect(bad.code).to.equal(5);
      expect(bad.stdout).to.include('unauthenticated');
      const scope = await runCli(['ledger', 'reverse', entry], conn);
      expect(scope.code).to.equal(5);
      expect(scope.stdout).to.include('required_scope: ledger:stage');
    });

    it('no token configured is exit 5, no URL exit 2', async () => {
      expect((await runCli(['inbox', 'duplicates'], { url: 'http://127.0.0.1:9' })).code).to.equal(5);
      expect((await runCli(['inbox', 'duplicates'], { token: 't' })).code).to.equal(2);
    });

    it('an API that does not answer is exit 1 after the retries', async () => {
      const run = await runCli(['inbox', 'duplicates', '--retries', '1'], { url: 'http://127.0.0.1:9', token: 't' });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.include('retry 1/1');
      expect(run.stderr).to.include('the API did not answer');
    });

    it('profile set stores the token from stdin in a 0600 file; --profile uses it; a file others can read is refused', async () => {
      const { books } = reversible();
      const conn = await loaded(books);
      const config = mkdtempSync(join(tmpdir(), 'bookstage-profile-'));
      const open = mkdtempSync(join(tmpdir(), 'bookstage-profile-'));
      try {
        const env = { XDG_CONFIG_HOME: config };
        const set = await runCli(['profile', 'set', 'ci', '--url', conn.url], { env, stdin: `${conn.token}\n` });
        expect(set.code, set.stderr).to.equal(0);
        const file = join(config, 'bookstage', 'config.json');
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        const used = await runCli(['inbox', 'duplicates', '--profile', 'ci'], { env });
        expect(used.code, used.stderr).to.equal(0);
        expect(used.stdout).to.include('No duplicate groups.');
        const list = await runCli(['profile', 'list'], { env });
        expect(list.stdout).to.equal(`ci\t${conn.url}\n`);
        expect(list.stdout).to.not.include(conn.token);

        mkdirSync(join(open, 'bookstage'));
        writeFileSync(
          join(open, 'bookstage', 'config.json'),
          JSON.stringify({ profiles: { ci: { url: conn.url, token: conn.token } } }),
          { mode: 0o644 },
        );
        const refused = await runCli(['inbox', 'duplicates', '--profile', 'ci'], { env: { XDG_CONFIG_HOME: open } });
        expect(refused.code).to.equal(2);
        expect(refused.stderr).to.include('chmod 600');
      } finally {
        rmSync(config, { recursive: true, force: true });
        rmSync(open, { recursive: true, force: true });
      }
    });
  });

  describe('help', () => {
    const COMMANDS = [
      [],
      ['reconcile'],
      ['reconcile', 'stage'],
      ['links'],
      ['links', 'repair'],
      ['ledger'],
      ['ledger', 'reverse'],
      ['inbox'],
      ['inbox', 'duplicates'],
      ['staged'],
      ['staged', 'list'],
      ['staged', 'show'],
      ['staged', 'approve'],
      ['staged', 'reject'],
      ['staged', 'apply'],
      ['jobs'],
      ['jobs', 'show'],
      ['profile'],
      ['profile', 'set'],
      ['profile', 'list'],
      ['statements', 'mapping'],
      ['statements', 'mapping', 'set'],
      ['statements', 'mapping', 'show'],
      ['periods'],
      ['periods', 'close'],
      ['periods', 'show'],
    ];

    it('every command has --help with an example; the top level lists the exit codes', async () => {
      for (const cmd of COMMANDS) {
        const run = await runCli([...cmd, '--help']);
        expect(run.code, cmd.join(' ')).to.equal(0);
        expect(run.stdout, cmd.join(' ')).to.match(/Examples?:\n(?: {2}\$ .*\n)* {2}\$ .*\bbookstage /);
      }
      const top = await runCli(['--help']);
      for (const code of [
        '0  success',
        '1  anything else',
        '2  bad input',
        '3  blocked or conflict',
        '4  not found',
        '5  auth',
        '6  pending',
      ])
        expect(top.stdout).to.include(code);
    });

    it('help asked for ends with 0; a group without its subcommand and an unknown command are usage errors (exit 2)', async () => {
      const asked = await runCli(['help', 'links']);
      expect(asked.code).to.equal(0);
      expect(asked.stdout).to.include('Usage: bookstage links');
      expect(asked.stdout).to.include('repair [options]');
      const bare = await runCli(['links']);
      expect(bare.code).to.equal(2);
      expect(bare.stderr).to.include('Usage: bookstage links');
      const unknown = await runCli(['linkz']);
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.include("unknown command 'linkz'");
      expect(unknown.stderr).to.include('(Did you mean links?)');
    });

    it('help into a pipe its reader closed ends with 0 and prints no stack trace', async () => {
      const run = await runCli(['--help'], { closeStdout: true });
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
    });

    it('an unknown option is a usage error (exit 2)', async () => {
      const run = await runCli(['ledger', 'reverse', 'le_1', '--bogus']);
      expect(run.code).to.equal(2);
      expect(run.stderr).to.include("unknown option '--bogus'");
    });
  });

  describe('staged operations (review and apply)', () => {
    /** One org: alice stages (no staged:approve), bob reviews and applies, carol stages too. */
    async function org(): Promise<{
      books: Books;
      entry: string;
      url: string;
      alice: string;
      bob: string;
      carol: string;
    }> {
      const { books, entry } = reversible();
      const s = await stack();
      await s.load(books.file);
      return {
        books,
        entry,
        url: s.baseUrl,
        alice: await s.token(books.orgId, ['ledger:stage', 'staged:read', 'staged:apply'], 'alice'),
        bob: await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob'),
        carol: await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'carol'),
      };
    }

    async function stageReversal(url: string, token: string, entry: string): Promise<string> {
      const run = await runCli(['ledger', 'reverse', entry, '--reason', 'booked twice', '--json'], { url, token });
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      return envelopeOf<ReversalData>(run.stdout).data.staged_operation_id;
    }

    it('staged list shows the operations the token can see: its own, or all with staged:approve', async () => {
      const o = await org();
      const other = o.books.invoice(1_000);
      await (await stack()).load(o.books.file);
      const mine = await stageReversal(o.url, o.alice, o.entry);
      const carols = await stageReversal(o.url, o.carol, other);

      const own = await runCli(['staged', 'list'], { url: o.url, token: o.alice });
      expect(own.code, own.stderr).to.equal(0);
      expect(own.stdout).to.match(new RegExp(`${mine}\\s+ledger_reversal\\s+staged\\s+alice`));
      expect(own.stdout).to.not.include(carols);

      const all = await runCli(
        ['staged', 'list', '--status', 'staged', '--kind', 'ledger_reversal', '--limit', '1', '--all'],
        { url: o.url, token: o.bob },
      );
      expect(all.code, all.stderr).to.equal(0);
      expect(all.stdout).to.include(mine);
      expect(all.stdout).to.match(new RegExp(`${carols}\\s+ledger_reversal\\s+staged\\s+carol`));

      const byCarol = await runCli(['staged', 'list', '--created-by', 'carol', '--json'], { url: o.url, token: o.bob });
      const page = envelopeOf<StagedListData>(byCarol.stdout);
      const api = await call('GET', '/api/v1/cli/staged-operations?created_by=carol', { token: o.bob });
      expect({ ...page, request_id: null }).to.deep.equal({ ...api.body, request_id: null });
      expect(page.data.items.map((i: { staged_operation_id: string }) => i.staged_operation_id)).to.deep.equal([
        carols,
      ]);

      const bad = await runCli(['staged', 'list', '--status', 'done'], { url: o.url, token: o.bob });
      expect(bad.code).to.equal(2);
      expect(bad.stdout).to.include('/query/status');
    });

    it('staged show prints the plan and history; an operation one may not see is exit 4', async () => {
      const o = await org();
      const id = await stageReversal(o.url, o.alice, o.entry);
      const run = await runCli(['staged', 'show', id], { url: o.url, token: o.bob });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(new RegExp(`^${id}\\s+ledger_reversal\\s+status staged\\n`));
      expect(run.stdout).to.include('Created by alice');
      // The reversal's amount (the entry's debits) in the header lines.
      expect(run.stdout).to.match(/Created by alice .*\nAmount 75\.00 EUR\n/);
      expect(run.stdout).to.include(`Reverses ledger entry ${o.entry}`);
      expect(run.stdout).to.include('75.00 EUR');
      expect(run.stdout).to.match(/History:\n.*\n.*alice\s+— → staged/);
      const json = await runCli(['staged', 'show', id, '--json'], { url: o.url, token: o.bob });
      const api = await call('GET', `/api/v1/cli/staged-operations/${id}`, { token: o.bob });
      expect({ ...JSON.parse(json.stdout), request_id: null }).to.deep.equal({ ...api.body, request_id: null });

      const hidden = await runCli(['staged', 'show', id], { url: o.url, token: o.carol });
      expect(hidden.code).to.equal(4);
      expect(hidden.stdout).to.include('not_found');
      expect((await runCli(['staged', 'show', 'stg_unknown'], { url: o.url, token: o.bob })).code).to.equal(4);
    });

    it('staged approve, then apply, applies the plan (exit 0); self-approval is exit 5, apply before approve 409 not_approved (exit 3)', async () => {
      const o = await org();
      const id = await stageReversal(o.url, o.alice, o.entry);

      const early = await runCli(['staged', 'apply', id], { url: o.url, token: o.bob });
      expect(early.code).to.equal(3);
      expect(early.stdout).to.include('not_approved (HTTP 409, not retryable)');

      // The org requires a distinct approver (the default); alice staged it.
      const aliceApprover = await (await stack()).token(o.books.orgId, ['staged:read', 'staged:approve'], 'alice');
      const self = await runCli(['staged', 'approve', id], { url: o.url, token: aliceApprover });
      expect(self.code).to.equal(5);
      expect(self.stdout).to.include('self_approval_forbidden (HTTP 403');

      const approved = await runCli(['staged', 'approve', id, '--note', 'checked the invoice'], {
        url: o.url,
        token: o.bob,
      });
      expect(approved.code, approved.stdout + approved.stderr).to.equal(0);
      expect(approved.stdout).to.match(new RegExp(`^${id}\\s+ledger_reversal\\s+status approved\\n`));
      expect(approved.stdout).to.match(/bob\s+staged → approved\s+checked the invoice/);

      const again = await runCli(['staged', 'approve', id], { url: o.url, token: o.bob });
      expect(again.code).to.equal(3);
      expect(again.stdout).to.include('invalid_transition (HTTP 409');

      const applied = await runCli(['staged', 'apply', id, '--wait', '0', '--follow'], { url: o.url, token: o.bob });
      expect(applied.code, applied.stdout + applied.stderr).to.equal(0);
      expect(applied.stdout).to.match(new RegExp(`^${id}\\s+ledger_reversal\\s+status applied\\n`));
      expect(applied.stdout).to.match(/Result: applied at \S+ by bob/);
      expect(applied.stdout).to.match(new RegExp(`update\\s+ledger_entries\\s+${o.entry}`));
      const entry = await (await stack()).db.collection('ledger_entries').findOne({ _id: o.entry } as never);
      expect(entry?.status).to.equal('reversed');

      // Applying an applied operation answers it again.
      const replay = await runCli(['staged', 'apply', id, '--json'], { url: o.url, token: o.alice });
      expect(replay.code, replay.stdout).to.equal(0);
      expect(envelopeOf<StagedOperationData>(replay.stdout).data.status).to.equal('applied');
      // --minimal: the operation without its plan (Prefer: return=minimal), the rest as it was.
      const minimal = await runCli(['staged', 'apply', id, '--json', '--minimal'], { url: o.url, token: o.alice });
      expect(minimal.code, minimal.stdout).to.equal(0);
      const lean = envelopeOf<StagedOperationData>(minimal.stdout).data;
      expect(lean.status).to.equal('applied');
      expect(lean).to.not.have.property('plan');
      expect(envelopeOf<StagedOperationData>(replay.stdout).data).to.have.property('plan');
    });

    it('staged reject needs a note (exit 2), releases its locks, and the entry can be staged again', async () => {
      const o = await org();
      const id = await stageReversal(o.url, o.alice, o.entry);
      const noNote = await runCli(['staged', 'reject', id], { url: o.url, token: o.bob });
      expect(noNote.code).to.equal(2);
      expect(noNote.stdout).to.include('/note: is required');

      const rejected = await runCli(['staged', 'reject', id, '--note', 'wrong entry'], { url: o.url, token: o.bob });
      expect(rejected.code, rejected.stdout + rejected.stderr).to.equal(0);
      expect(rejected.stdout).to.match(new RegExp(`^${id}\\s+ledger_reversal\\s+status rejected\\n`));
      expect(await (await stack()).db.collection('scope_locks').countDocuments({ staged_operation_id: id })).to.equal(
        0,
      );

      const restaged = await runCli(['ledger', 'reverse', o.entry, '--reason', 'booked twice'], {
        url: o.url,
        token: o.alice,
      });
      expect(restaged.code, restaged.stdout).to.equal(0);
      expect(restaged.stdout).to.match(/^Staged ledger reversal stg_/);
      expect(restaged.stdout).to.not.include(id);
    });

    it('apply has no --note (its body has no fields)', async () => {
      const run = await runCli(['staged', 'apply', 'stg_x', '--note', 'n']);
      expect(run.code).to.equal(2);
      expect(run.stderr).to.include("unknown option '--note'");
    });
  });

  describe('failures the API answers', () => {
    it('a job that failed for good (500 job_failed) is not retried: exit 1, with the key that starts a new attempt', async () => {
      const s = await stack();
      const { books, entry } = reversible();
      const conn = await loaded(books);
      await s.stopWorker();
      await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'stage:fail-for-good' });
      let failed;
      try {
        failed = await runCli(['ledger', 'reverse', entry, '--idempotency-key', `cli-fail-${entry}`], conn);
      } finally {
        await s.stopWorker();
        await s.startWorker();
      }
      expect(failed.code).to.equal(1);
      expect(failed.stdout).to.include('job_failed (HTTP 500, not retryable)');
      expect(failed.stderr).to.not.include('retry 1/');
      expect(failed.stderr).to.include(`--idempotency-key cli-fail-${entry} starts a new attempt`);
      const retried = await runCli(['ledger', 'reverse', entry, '--idempotency-key', `cli-fail-${entry}`], conn);
      expect(retried.code, retried.stdout + retried.stderr).to.equal(0);
      expect(await countStagedWithPlan({ ledger_entry_id: entry })).to.equal(1);
    });

    describe('with its Redis stopped', () => {
      let own: OwnRedisApi | null = null;

      after(async () => {
        await own?.close();
      });

      it('retries 503 dependency_unavailable with the same Idempotency-Key until Redis is back: one request, accepted once', async () => {
        const s = await stack();
        // An API of its own on its own Redis; no worker serves that queue, so once Redis is back the job waits (202).
        own = await apiWithOwnRedis('cli-outage');
        const { books, entry } = reversible();
        await s.load(books.file);
        const token = await s.token(books.orgId, ['ledger:stage']);
        await own.stopRedis();
        const key = `cli-outage-${entry}`;
        const run = runCli(
          ['ledger', 'reverse', entry, '--idempotency-key', key, '--wait', '0', '--retries', '20', '--json'],
          { url: `http://127.0.0.1:${own.port}`, token },
        );
        // The first answers are 503 (Retry-After: 1); Redis comes back while the CLI retries.
        await new Promise((r) => setTimeout(r, 1500));
        await own.startRedis();
        const done = await run;
        expect(done.stderr).to.match(new RegExp(`HTTP 503; retry 1/20 in 1\\.0 s \\(same Idempotency-Key ${key}\\)`));
        expect(done.code, done.stdout + done.stderr).to.equal(6);
        expect(envelopeOf<PendingData>(done.stdout).data.outcome).to.equal('pending');
        expect(await s.db.collection('idempotency_keys').countDocuments({ org_id: books.orgId })).to.equal(1);
      });
    });
  });
});
