// `admin books import FILE --format hledger|beancount` (docs/guide/ledger-exchange.md
// "Import", "Refusals"): a journal of one's own becomes an organisation's
// books, bank side included; every refusal refuses the whole file with exit
// 2, names the line and its code, and writes nothing.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBeanCheck, ensureHledger } from '../../scripts/python-tools.js';
import { LEDGER_FILE_MAX_BYTES } from '../../shared/books/ledger-import.js';
import { LEDGER_REFUSALS } from '../../shared/domain/ledger-import/read-journal.js';
import { stack } from '../helpers/stack.js';

const adminJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'admin.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [adminJs, ...args], { env, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let n = 0;
const newOrg = () => `org_li_${process.pid}_${(n += 1)}_${Math.random().toString(16).slice(2, 6)}`;

async function recordsOf(orgId: string): Promise<number> {
  const { db } = await stack();
  const names = ['ledger_entries', 'bank_accounts', 'bank_transactions', 'bank_links', 'ledger_accounts'];
  const counts = await Promise.all(names.map((c) => db.collection(c).countDocuments({ org_id: orgId })));
  return counts.reduce((a, b) => a + b, 0) + (await db.collection('orgs').countDocuments({ _id: orgId } as never));
}

describe('admin books import --format hledger|beancount', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    ensureHledger();
    ensureBeanCheck();
    await stack();
    dir = mkdtempSync(join(tmpdir(), 'bookstage-ledger-import-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("imports an hledger journal: its bank account's opening balance, a bank transaction booked, settled and linked, its last assertion", async () => {
    const org = newOrg();
    const path = write(
      'own.journal',
      [
        '2025-01-01 Opening',
        '    Assets:Bank:Checking  1,000.00 EUR',
        '    Equity:Opening',
        '',
        '2025-01-05 Hardware store | screws',
        '    Expenses:Office  12.50 EUR',
        '    Liabilities:Card',
        '',
        '2025-01-07 Bakery | lunch',
        '    Expenses:Food  8.20 EUR',
        '    Assets:Bank:Checking  = 991.80 EUR',
        '',
      ].join('\n'),
    );
    const ran = await admin([
      'books',
      'import',
      path,
      '--format',
      'hledger',
      '--org',
      org,
      '--bank-account',
      `Assets:Bank:Checking=ba_${org}`,
    ]);
    expect(ran.code, ran.stderr).to.equal(0);
    const { db } = await stack();
    const bank = await db.collection('bank_accounts').findOne({ org_id: org });
    expect(bank).to.include({
      _id: `ba_${org}`,
      currency: 'EUR',
      ledger_account: 'Assets.Bank.Checking',
      opening_balance_minor: 100_000,
    });
    expect(bank!.reconciled_through).to.deep.equal({ date: '2025-01-07', balance_minor: 99_180 });
    const txns = await db.collection('bank_transactions').find({ org_id: org }).toArray();
    expect(txns.map((t): unknown[] => [t._id, t.amount_minor, t.counterparty_name, t.remittance_info])).to.deep.equal([
      [`bt_${org}_L9`, -820, 'Bakery', 'lunch'],
    ]);
    const entries = await db.collection('ledger_entries').find({ org_id: org }).sort({ _id: 1 }).toArray();
    expect(entries.map((e): unknown[] => [e._id, e.description, e.lines])).to.deep.equal([
      [
        `le_${org}_L5`,
        'screws',
        [
          { account: 'Expenses.Office', debit_minor: 1250, credit_minor: 0 },
          { account: 'Liabilities.Card', debit_minor: 0, credit_minor: 1250 },
        ],
      ],
      [
        `le_${org}_L9`,
        'lunch',
        [
          { account: 'Expenses.Food', debit_minor: 820, credit_minor: 0 },
          { account: 'SETTLEMENT', debit_minor: 0, credit_minor: 820 },
        ],
      ],
    ]);
    const links = await db.collection('bank_links').find({ org_id: org }).toArray();
    expect(links.map((l): unknown[] => [l.bank_transaction_id, l.ledger_entry_id, l.amount_minor])).to.deep.equal([
      [`bt_${org}_L9`, `le_${org}_L9`, 820],
    ]);
    const orgDoc = await db.collection('orgs').findOne({ _id: org } as never);
    expect(orgDoc).to.include({ base_currency: 'EUR' });
    expect(orgDoc!.settlement_accounts).to.deep.equal(['SETTLEMENT']);
    const chart = await db.collection('ledger_accounts').find({ org_id: org }).sort({ code: 1 }).toArray();
    expect(chart.map((a): unknown[] => [a.code, a.name, a.type])).to.deep.equal([
      ['Assets.Bank.Checking', 'Assets:Bank:Checking', 'asset'],
      ['Equity.Opening', 'Equity:Opening', 'equity'],
      ['Expenses.Food', 'Expenses:Food', 'expense'],
      ['Expenses.Office', 'Expenses:Office', 'expense'],
      ['Liabilities.Card', 'Liabilities:Card', 'liability'],
      ['SETTLEMENT', 'Settlement', 'asset'],
    ]);
  });

  it('imports a beancount file: pad as the opening balance, a balance as the reconciliation of the day before', async () => {
    const org = newOrg();
    const path = write(
      'own.beancount',
      [
        '2025-01-01 open Assets:Bank',
        `  bank-account: "ba_${org}"`,
        '2025-01-01 open Equity:Opening',
        '2025-01-01 open Income:Sales',
        '2025-01-01 pad Assets:Bank Equity:Opening',
        '2025-01-03 balance Assets:Bank  50.00 EUR',
        '2025-01-04 * "Acme" "invoice 7"',
        '  Assets:Bank  20.00 EUR',
        '  Income:Sales',
        '2025-01-06 balance Assets:Bank  70.00 EUR',
        '',
      ].join('\n'),
    );
    const ran = await admin(['books', 'import', path, '--format', 'beancount', '--org', org]);
    expect(ran.code, ran.stderr).to.equal(0);
    const { db } = await stack();
    const bank = await db.collection('bank_accounts').findOne({ org_id: org });
    expect(bank).to.include({ _id: `ba_${org}`, opening_balance_minor: 5_000, ledger_account: 'Assets.Bank' });
    expect(bank!.reconciled_through).to.deep.equal({ date: '2025-01-05', balance_minor: 7_000 });
    const txns = await db.collection('bank_transactions').find({ org_id: org }).toArray();
    expect(txns.map((t): unknown[] => [t.amount_minor, t.counterparty_id, t.counterparty_name])).to.deep.equal([
      [2_000, 'cp_acme', 'Acme'],
    ]);
  });

  it('--base-currency and --settlement-accounts: a settlement code the file does not use joins the chart, typed by its root', async () => {
    const org = newOrg();
    const path = write(
      'flags.journal',
      [
        '2025-01-01 Opening',
        '    Assets:Bank:Checking  100.00 USD',
        '    Equity:Opening',
        '',
        '2025-01-07 Bakery | lunch',
        '    Expenses:Food  8.20 USD',
        '    Assets:Bank:Checking',
        '',
      ].join('\n'),
    );
    const ran = await admin([
      ...['books', 'import', path, '--format', 'hledger', '--org', org],
      ...['--bank-account', `Assets:Bank:Checking=ba_${org}`, '--base-currency', 'EUR'],
      ...['--settlement-accounts', 'Assets.Receivable,Liabilities.Payable'],
    ]);
    expect(ran.code, ran.stderr).to.equal(0);
    const { db } = await stack();
    const orgDoc = await db.collection('orgs').findOne({ _id: org } as never);
    expect(orgDoc).to.include({ base_currency: 'EUR' });
    expect(orgDoc!.settlement_accounts).to.deep.equal(['Assets.Receivable', 'Liabilities.Payable']);
    const chart = await db.collection('ledger_accounts').find({ org_id: org }).sort({ code: 1 }).toArray();
    expect(chart.map((a): unknown[] => [a.code, a.type])).to.deep.equal([
      ['Assets.Bank.Checking', 'asset'],
      ['Assets.Receivable', 'asset'],
      ['Equity.Opening', 'equity'],
      ['Expenses.Food', 'expense'],
      ['Liabilities.Payable', 'liability'],
    ]);
    const entries = await db.collection('ledger_entries').find({ org_id: org }).toArray();
    expect(entries.map((e): unknown[] => [e.currency, e.lines])).to.deep.equal([
      [
        'USD',
        [
          { account: 'Expenses.Food', debit_minor: 820, credit_minor: 0 },
          { account: 'Assets.Receivable', debit_minor: 0, credit_minor: 820 },
        ],
      ],
    ]);
  });

  const refusals: Array<{
    what: string;
    format: 'hledger' | 'beancount';
    text: string[];
    line: number;
    code: string;
    args?: string[];
  }> = [
    {
      what: 'what the tool cannot parse',
      format: 'hledger',
      text: [
        '2025-01-01 x',
        '    Assets:A  1.00 EUR',
        '    Assets:B',
        '',
        '2025-13-45 y',
        '    Assets:A  1.00 EUR',
        '    Assets:B',
      ],
      line: 5,
      code: 'ledger_syntax',
    },
    {
      what: 'a false balance assertion',
      format: 'hledger',
      text: [
        '2025-01-01 x',
        '    Assets:A  1.00 EUR',
        '    Assets:B',
        '',
        '2025-01-02 y',
        '    Assets:A  1.00 EUR = 5.00 EUR',
        '    Assets:B',
      ],
      line: 6,
      code: 'ledger_assertion',
    },
    {
      what: 'a commodity that is not a currency code',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  $10.00', '    Assets:B'],
      line: 1,
      code: 'ledger_currency',
    },
    {
      what: 'an account without a root or a type',
      format: 'hledger',
      text: ['2025-01-01 x', '    Checking  10.00 EUR', '    Assets:B'],
      line: 1,
      code: 'ledger_account_type',
    },
    {
      what: 'a transaction on two bank accounts with another posting',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.00 EUR', '    Assets:B  -5.00 EUR', '    Expenses:C  -5.00 EUR'],
      line: 1,
      code: 'ledger_bank_postings',
      args: ['--bank-account', 'Assets:A=ba_a', '--bank-account', 'Assets:B=ba_b'],
    },
    {
      what: 'books the books import refuses (an id it cannot hold)',
      format: 'hledger',
      text: ['2025-01-01 x  ; id:-bad', '    Assets:A  10.00 EUR', '    Assets:B'],
      line: 1,
      code: 'ledger_books_invalid',
    },
    {
      what: 'a price',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.00 EUR @ 1.10 USD', '    Assets:B'],
      line: 2,
      code: 'ledger_price',
    },
    {
      what: 'a market price directive',
      format: 'beancount',
      text: ['2025-01-01 open Assets:A', '2025-01-02 price EUR 1.10 USD'],
      line: 2,
      code: 'ledger_price',
    },
    {
      what: 'a lot cost',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  1 EUR {2.00 EUR}', '    Assets:B  -1 EUR'],
      line: 2,
      code: 'ledger_lot',
    },
    {
      what: 'a posting held at cost',
      format: 'beancount',
      text: [
        '2025-01-01 open Assets:A',
        '2025-01-01 open Assets:B',
        '2025-01-02 * "x" "y"',
        '  Assets:A  1 ACM {2.00 EUR}',
        '  Assets:B  -2.00 EUR',
      ],
      line: 4,
      code: 'ledger_lot',
    },
    {
      what: 'a transaction in two currencies',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.00 EUR', '    Assets:B  -11.00 USD'],
      line: 1,
      code: 'ledger_two_currencies',
    },
    {
      what: 'a virtual posting',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.00 EUR', '    Assets:B  -10.00 EUR', '    (Assets:Budget)  5.00 EUR'],
      line: 1,
      code: 'ledger_virtual_posting',
    },
    {
      what: 'an include',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.00 EUR', '    Assets:B', '', 'include other.journal'],
      line: 5,
      code: 'ledger_include',
    },
    {
      what: 'an unbalanced transaction',
      format: 'hledger',
      text: ['', '2025-01-01 x', '    Assets:A  10.00 EUR', '    Assets:B  -9.99 EUR'],
      line: 2,
      code: 'ledger_unbalanced',
    },
    {
      what: 'an unbalanced transaction',
      format: 'beancount',
      text: [
        '2025-01-01 open Assets:A',
        '2025-01-01 open Assets:B',
        '2025-01-02 * "x" "y"',
        '  Assets:A  10.00 EUR',
        '  Assets:B  -9.99 EUR',
      ],
      line: 3,
      code: 'ledger_unbalanced',
    },
    {
      what: 'an account used but never opened',
      format: 'beancount',
      text: ['2025-01-01 open Assets:A', '2025-01-02 * "x" "y"', '  Assets:A  10.00 EUR', '  Assets:B  -10.00 EUR'],
      line: 2,
      code: 'ledger_account_not_opened',
    },
    {
      what: 'an amount with more decimals than its currency',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  10.005 EUR', '    Assets:B  -10.005 EUR'],
      line: 1,
      code: 'ledger_amount_precision',
    },
    {
      what: 'an amount with more decimals than its currency',
      format: 'beancount',
      text: [
        '2025-01-01 open Assets:A',
        '2025-01-01 open Assets:B',
        '2025-01-02 * "x" "y"',
        '  Assets:A  5.5 JPY',
        '  Assets:B  -5.5 JPY',
      ],
      line: 3,
      code: 'ledger_amount_precision',
    },
    {
      what: 'an amount past the largest the books hold exactly',
      format: 'hledger',
      text: ['2025-01-01 x', '    Assets:A  90071992547409.92 EUR', '    Assets:B  -90071992547409.92 EUR'],
      line: 1,
      code: 'ledger_amount_range',
    },
    {
      what: 'a date the books cannot hold',
      format: 'hledger',
      text: [
        '2025-01-01 x',
        '    Assets:A  10.00 EUR',
        '    Assets:B',
        '',
        '10000-01-01 y',
        '    Assets:A  1.00 EUR',
        '    Assets:B',
      ],
      line: 5,
      code: 'ledger_date',
    },
  ];

  it('holds every refusal the import has: each code below, and the size refusal after them', () => {
    const held = new Set([...refusals.map((r) => r.code), 'ledger_file_too_large']);
    expect([...LEDGER_REFUSALS].filter((code) => !held.has(code))).to.deep.equal([]);
  });

  for (const r of refusals) {
    it(`refuses ${r.what} (${r.format}): exit 2, line ${r.line}, ${r.code}, nothing written`, async () => {
      const org = newOrg();
      const path = write(`refused-${n}.${r.format}`, `${r.text.join('\n')}\n`);
      const ran = await admin(['books', 'import', path, '--format', r.format, '--org', org, ...(r.args ?? [])]);
      expect(ran.code, ran.stderr).to.equal(2);
      expect(ran.stderr).to.include('books import refused; nothing was written.');
      expect(ran.stderr).to.include(`${path}:${r.line}: ${r.code}: `);
      expect(await recordsOf(org)).to.equal(0);
    });
  }

  it(`refuses a file past ${LEDGER_FILE_MAX_BYTES} bytes before reading it`, async () => {
    const org = newOrg();
    const path = write('huge.journal', '2025-01-01 x\n    Assets:A  1.00 EUR\n    Assets:B\n');
    truncateSync(path, LEDGER_FILE_MAX_BYTES + 1);
    const ran = await admin(['books', 'import', path, '--format', 'hledger', '--org', org]);
    expect(ran.code, ran.stderr).to.equal(2);
    expect(ran.stderr).to.include(`${path}:0: ledger_file_too_large: `);
    expect(await recordsOf(org)).to.equal(0);
  });

  it('refuses an organisation that exists already, and --org without --format', async () => {
    const org = newOrg();
    const path = write('ok.journal', '2025-01-01 x\n    Assets:A  1.00 EUR\n    Assets:B\n');
    expect((await admin(['books', 'import', path, '--format', 'hledger', '--org', org])).code).to.equal(0);
    const again = await admin(['books', 'import', path, '--format', 'hledger', '--org', org]);
    expect(again.code).to.equal(2);
    expect(again.stderr).to.include('exists already');
    expect((await admin(['books', 'import', path, '--org', org])).code).to.equal(2);
  });

  it('a tool that is not installed is named with the npm script that installs it, and nothing is written', async () => {
    const org = newOrg();
    const path = write(
      'no-tool.journal',
      ['2025-01-05 Shop', '    Expenses:Office  12.50 EUR', '    Liabilities:Card', ''].join('\n'),
    );
    for (const [format, env] of [
      ['hledger', { BOOKSTAGE_HLEDGER: join(dir, 'no-such-hledger') }],
      ['beancount', { BOOKSTAGE_BEANCOUNT_PYTHON: join(dir, 'no-such-python') }],
    ] as const) {
      const ran = await admin(['books', 'import', path, '--format', format, '--org', org], { ...process.env, ...env });
      expect(ran.code, format).to.not.equal(0);
      expect(ran.stderr, format).to.include('npm run tools:ledger');
    }
    expect(await recordsOf(org)).to.equal(0);
  });
});
