// The books export (docs/reference/book-reads.md "Export", docs/guide/ledger-exchange.md)
// checked by the real tools: every export of the demo books and of generated
// books (three seeds, with reversals, USD and JPY on accounts of their own, two
// bank accounts on one ledger account, a chart and none, a reconciliation that
// leaves a transaction out) passes `hledger check` and `bean-check`, `hledger
// bal` per account equals the trial balance read, and each bank account's
// sub-account holds its balance.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBeanCheck, ensureHledger } from '../../scripts/python-tools.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import type { TrialBalance } from '../../shared/domain/trial-balance.js';
import { ledgerToolEnv } from '../../shared/books/ledger-import.js';
import { dayAfter } from '../../shared/domain/dates.js';
import { decimalAmount } from '../../shared/domain/ledger-export/journal.js';
import { EXPORT_PART_CHARS } from '../../shared/storage/book-exports.js';
import { DEMO_BOOKS, generateBooks } from '../../shared/demo/books-generator.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { actors, apply, approve } from '../helpers/staged.js';
import { exportTestBooks as books } from '../helpers/ledger-books.js';
import { stack } from '../helpers/stack.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const EXPONENT: Record<string, number> = { EUR: 2, USD: 2, JPY: 0 };

const execFileAsync = promisify(execFile);

/**
 * A ledger tool's exit status and output. Run without blocking the event loop:
 * a loop blocked past the API's keep-alive time lets the API close a pooled
 * socket that the next call then reuses before the close is read (ECONNRESET).
 */
async function runTool(command: string, args: string[]): Promise<{ status: number; stdout: string; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      encoding: 'utf8',
      env: ledgerToolEnv(),
      maxBuffer: 256 * 1024 * 1024,
    });
    return { status: 0, stdout, output: `${stdout}${stderr}` };
  } catch (err) {
    const failed = err as { code?: unknown; stdout?: string; stderr?: string; message: string };
    const status = typeof failed.code === 'number' ? failed.code : -1;
    return { status, stdout: failed.stdout ?? '', output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
  }
}

/** A tool's stdout; throws with its output when it fails. */
async function toolOutput(command: string, args: string[]): Promise<string> {
  const run = await runTool(command, args);
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${run.status}: ${run.output}`);
  return run.stdout;
}

interface Exported {
  status: number;
  text: string;
  headers: Headers;
}

describe('books export, checked by hledger and bean-check', function () {
  this.timeout(600_000);
  let dir: string;
  let hledger: string;
  let beanCheck: string;

  before(() => {
    hledger = ensureHledger();
    beanCheck = ensureBeanCheck();
    dir = mkdtempSync(join(tmpdir(), 'bookstage-export-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function exported(token: string, query: string): Promise<Exported> {
    const s = await stack();
    const res = await fetch(`${s.baseUrl}/api/v1/cli/books/export${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** `hledger bal` at the code level (Root:Code; bank sub-accounts roll up), as minor units per (code, currency); deeper, per account name. */
  async function hledgerBalances(file: string, journal: string, depth = 2): Promise<Map<string, number>> {
    const codeOf = new Map<string, string>();
    if (depth === 2)
      for (const m of journal.matchAll(/^account (\S+) {2}; type:\w, code:([^,\n]+)/gm)) codeOf.set(m[1]!, m[2]!);
    const csv = await toolOutput(hledger, [
      '-f',
      file,
      'bal',
      '--depth',
      String(depth),
      '-O',
      'csv',
      '-N',
      '--layout=bare',
    ]);
    const out = new Map<string, number>();
    for (const line of csv.trim().split('\n').slice(1)) {
      const [account, commodity, amount] = JSON.parse(`[${line}]`) as [string, string, string];
      const [units, fraction = ''] = amount.replace('-', '').split('.');
      const exponent = EXPONENT[commodity]!;
      const minor = Number(units) * 10 ** exponent + Number(fraction.padEnd(exponent, '0') || '0');
      out.set(
        `${depth === 2 ? (codeOf.get(account) ?? `?${account}`) : account} ${commodity}`,
        amount.startsWith('-') ? -minor : minor,
      );
    }
    return out;
  }

  /**
   * Export in both formats (every record, or through a day), check each with its tool, and compare `hledger bal`
   * with the trial balance read: per code, and per bank account's sub-account with its book balance.
   */
  async function checkedByTools(file: BooksFile, through: string | null): Promise<{ h: string; b: string }> {
    const token = await (await stack()).token(file.org.id, ['books:read']);
    const q = through ? `&through=${through}` : '';
    const h = await exported(token, `?format=hledger${q}`);
    expect(h.status, h.text.slice(0, 500)).to.equal(200);
    expect(h.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(h.headers.get('x-request-id')).to.be.a('string');
    const b = await exported(token, `?format=beancount${q}`);
    expect(b.status, b.text.slice(0, 500)).to.equal(200);
    for (const x of [h, b]) expect(x.headers.get('content-length')).to.equal(String(Buffer.byteLength(x.text)));
    const hFile = join(dir, `${file.org.id}-${through ?? 'all'}.journal`);
    const bFile = join(dir, `${file.org.id}-${through ?? 'all'}.beancount`);
    writeFileSync(hFile, h.text);
    writeFileSync(bFile, b.text);

    const hCheck = await runTool(hledger, ['-f', hFile, 'check']);
    expect(hCheck.status, hCheck.output).to.equal(0);
    const bCheck = await runTool(beanCheck, [bFile]);
    expect(bCheck.status, bCheck.output).to.equal(0);

    const asOf = through ?? '2099-12-31';
    const tb = await call<TrialBalance>('GET', `/api/v1/cli/ledger/trial-balance?as_of=${asOf}`, { token });
    expect(tb.status).to.equal(200);
    const expected = new Map(
      tb.body.data.items
        .filter((r) => r.balance_minor !== 0)
        .map((r) => [`${r.account} ${r.currency}`, Number(r.balance_minor)]),
    );
    expect(Object.fromEntries(await hledgerBalances(hFile, h.text))).to.deep.equal(Object.fromEntries(expected));

    // Each bank account on a sub-account of its own, holding its balance: opening + its transactions up to the day.
    const subAccounts = new Map<string, string>();
    for (const m of h.text.matchAll(/^account (\S+) {2}; type:\w, bank-account:([^,\n]+)/gm))
      subAccounts.set(m[2]!, m[1]!);
    const bankBalances = await hledgerBalances(hFile, h.text, 3);
    for (const a of file.bank_accounts) {
      const dated = file.bank_transactions.filter(
        (t) => t.bank_account_id === a.id && (!through || t.booking_date <= through),
      );
      if (dated.length === 0) continue;
      const balance = dated.reduce((sum, t) => sum + t.amount_minor, a.opening_balance_minor);
      const name = subAccounts.get(a.id);
      expect(name, a.id).to.be.a('string');
      expect(bankBalances.get(`${name} ${a.currency}`) ?? 0, a.id).to.equal(balance);
    }
    return { h: h.text, b: b.text };
  }

  for (const seed of [1, 2, 3]) {
    for (const chart of [true, false]) {
      it(`seed ${seed}, ${chart ? 'with a chart' : 'without a chart'}: both tools read it clean and hledger's balances are the trial balance`, async () => {
        const s = await stack();
        const file = books(seed, chart);
        await s.load(file);
        for (const through of [null, '2025-04-30']) {
          const { h, b } = await checkedByTools(file, through);
          // The USD reconciliation left a transaction out: summarised at the top, never asserted.
          const usd = `ba_${file.org.id}_usd`;
          for (const text of [h, b]) {
            expect(text).to.include(`;   ${usd} reconciled through 2025-03-31: statement 519.99 USD, books 512.99 USD`);
          }
          expect(h).not.to.match(new RegExp(`Reconciled balance  ; bank-account:${usd}`));
          // The EUR accounts' reconciliations agree with their transactions: asserted by both tools, the
          // main account's (on 1200) at its statement balance, which some generated books leave below zero.
          const main = file.bank_accounts[0]!.reconciled_through!;
          const balance = decimalAmount(main.balance_minor, 'EUR').replace('.', '\\.');
          expect(h).to.match(new RegExp(`^ {4}Assets:1200:\\S+ {2}0 EUR = ${balance} EUR$`, 'm'));
          expect(b).to.match(new RegExp(`^${dayAfter(main.date)} balance Assets:1200:\\S+ {2}${balance} EUR$`, 'm'));
          // Yen without decimals; two codes that name alike told apart.
          expect(h).to.match(/^ {4}Assets:1230:\S+ {2}12000 JPY$/m);
          expect(h).to.match(
            chart
              ? /^account Expenses:A-1-2 {2}; type:X, code:a\.1,/m
              : /^account Equity:A-1-2 {2}; type:E, code:a\.1$/m,
          );
        }
      });
    }
  }

  it("the demo books: both tools read them clean and hledger's balances are the trial balance", async () => {
    const file = generateBooks(DEMO_BOOKS);
    await (await stack()).load(file);
    await checkedByTools(file, null);
  });

  it('an export of several parts streams whole and in order: both tools read it, its balances are the trial balance', async () => {
    const file = generateBooks({
      org_id: `org_exp_parts_${Math.random().toString(16).slice(2, 8)}`,
      size: 3_000,
      seed: 7,
    });
    await (await stack()).load(file);
    const { h, b } = await checkedByTools(file, null);
    // The worker stores a part per EXPORT_PART_CHARS characters (ASCII here): both files span two parts or more.
    expect(Buffer.byteLength(h)).to.be.greaterThan(EXPORT_PART_CHARS);
    expect(Buffer.byteLength(b)).to.be.greaterThan(EXPORT_PART_CHARS);
  });

  it('a record an applied operation wrote carries its id and approvers, read back whole by both tools', async () => {
    const books = new Books();
    const account = books.account();
    const fee = books.txn(account, -350, { booking_date: '2026-03-02', counterparty_name: 'The Bank' });
    const untouched = books.invoice(12_000);
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    const staged = await call<{ staged_operation_id: string; plan: { ledger_entry_id: string } }>(
      'POST',
      '/api/v1/cli/ledger/entries/stage',
      {
        token: who.alice,
        body: bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee }),
      },
    );
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const opId = staged.body.data.staged_operation_id;
    const entryId = staged.body.data.plan.ledger_entry_id;
    expect((await approve(who.bob, opId)).status).to.equal(200);
    expect((await apply(who.bob, opId)).status).to.equal(200);

    const token = await s.token(books.orgId, ['books:read']);
    const h = await exported(token, '?format=hledger');
    const b = await exported(token, '?format=beancount');
    const hFile = join(dir, `${books.orgId}-ops.journal`);
    const bFile = join(dir, `${books.orgId}-ops.beancount`);
    writeFileSync(hFile, h.text);
    writeFileSync(bFile, b.text);
    expect((await runTool(hledger, ['-f', hFile, 'check'])).status).to.equal(0);
    expect((await runTool(beanCheck, [bFile])).status).to.equal(0);

    // hledger's own reading of the tags: the entry and the link's posting name the operation and its approver.
    type Tx = { ttags: string[][]; tpostings: Array<{ pcomment: string }> };
    const printed = JSON.parse(await toolOutput(hledger, ['-f', hFile, 'print', '-O', 'json'])) as Tx[];
    const tagsOf = (id: string) => printed.find((t) => t.ttags.some(([k, v]) => k === 'id' && v === id))!;
    expect(tagsOf(entryId).ttags).to.deep.include.members([
      ['operation', opId],
      ['approved-by', 'bob'],
    ]);
    expect(tagsOf(untouched).ttags.map(([k]) => k)).not.to.include('operation');
    const feeTx = tagsOf(fee);
    expect(feeTx.ttags.map(([k]) => k)).not.to.include('operation');
    expect(feeTx.tpostings.map((p) => p.pcomment.trim())).to.include(
      `entry:${entryId}, operation:${opId}, approved-by:bob`,
    );
    // beancount's loader reads the same metadata back as strings.
    const python = join(dirname(beanCheck), 'python');
    const script = join(
      dirname(fileURLToPath(import.meta.url)),
      '..',
      '..',
      '..',
      'scripts',
      'beancount',
      'read_json.py',
    );
    const records = (await toolOutput(python, [script, bFile]))
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            t: string;
            meta?: Record<string, string>;
            postings?: Array<{ meta: Record<string, string> }>;
          },
      );
    const entry = records.find((r) => r.t === 'txn' && r.meta?.id === entryId)!;
    expect(entry.meta).to.include({ operation: opId, 'approved-by': 'bob' });
    const link = records
      .find((r) => r.t === 'txn' && r.meta?.id === fee)!
      .postings!.find((p) => p.meta.entry === entryId)!;
    expect(link.meta).to.deep.equal({ entry: entryId, operation: opId, 'approved-by': 'bob' });
  });

  it('the same books give the same file, byte for byte; the answer carries its length and SHA-256', async () => {
    const s = await stack();
    const file = books(4, true);
    await s.load(file);
    const token = await s.token(file.org.id, ['books:read']);
    const one = await exported(token, '?format=beancount');
    const two = await exported(token, '?format=beancount');
    expect(one.text).to.equal(two.text);
    expect(one.headers.get('content-length')).to.equal(String(Buffer.byteLength(one.text)));
    const sha = (await import('node:crypto')).createHash('sha256').update(one.text).digest('base64');
    expect(one.headers.get('repr-digest')).to.equal(`sha-256=:${sha}:`);
  });

  it('refuses an unknown format, a bad day and a token without books:read, in the envelope', async () => {
    const s = await stack();
    const file = books(5, false);
    await s.load(file);
    const token = await s.token(file.org.id, ['books:read']);
    for (const query of ['?format=ledger', '', '?format=hledger&through=2025-02-30']) {
      const res = await call('GET', `/api/v1/cli/books/export${query}`, { token });
      expect(res.status, query).to.equal(400);
      expect(res.body.error?.code, query).to.equal('validation_failed');
    }
    const other = await s.token(file.org.id, ['staged:read']);
    expect((await call('GET', '/api/v1/cli/books/export?format=hledger', { token: other })).status).to.equal(403);
  });
});
