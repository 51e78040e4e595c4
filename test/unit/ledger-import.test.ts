// The ledger import's pure parts (shared/domain/ledger-import/,
// docs/guide/ledger-exchange.md "Import"), with exact values: amounts from
// mantissa and places, codes and types of accounts, the line scan, hledger's
// JSON, and a journal mapped to books.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accountCodes, accountType, codeFromName } from '../../shared/domain/ledger-import/account-codes.js';
import { hledgerTransaction, type HledgerTransaction } from '../../shared/domain/ledger-import/hledger-json.js';
import { LEDGER_REFUSALS, minorOf, type ReadJournal } from '../../shared/domain/ledger-import/read-journal.js';
import { JournalScan, commentTags } from '../../shared/domain/ledger-import/scan.js';
import { journalToBooks } from '../../shared/domain/ledger-import/to-books.js';

// This file runs as dist/test/unit/ledger-import.test.js; the checkout is three levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const eur = (mantissa: string, places = 2) => ({ currency: 'EUR', mantissa, places });

describe('ledger import: the pure parts', () => {
  it("documents each refusal code, and only those, in the guide's Refusals table", () => {
    const guide = readFileSync(join(root, 'docs', 'guide', 'ledger-exchange.md'), 'utf8');
    const table = guide.slice(guide.indexOf('### Refusals'), guide.indexOf('## How the tests check it'));
    const documented = [...table.matchAll(/^\| `(ledger_[a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented).to.deep.equal([...LEDGER_REFUSALS]);
  });

  it('reads amounts exactly from mantissa and places, and refuses what the currency cannot hold', () => {
    expect(minorOf(eur('1050'), 1)).to.equal(1050);
    expect(minorOf(eur('-105', 1), 1)).to.equal(-1050);
    expect(minorOf(eur('10500', 3), 1)).to.equal(1050);
    expect(minorOf({ currency: 'JPY', mantissa: '1500', places: 0 }, 1)).to.equal(1500);
    expect(minorOf(eur('90071992547409', 0), 1)).to.equal(9_007_199_254_740_900);
    expect(minorOf(eur('10005', 3), 7)).to.deep.equal({
      line: 7,
      code: 'ledger_amount_precision',
      message: "10.005 EUR has more decimals than EUR's 2",
    });
    expect(minorOf(eur('9007199254740992'), 3)).to.have.property('code', 'ledger_amount_range');
    expect(minorOf({ currency: '$', mantissa: '1', places: 0 }, 2)).to.have.property('code', 'ledger_currency');
  });

  it('gives an account the code the export wrote, else one from its full name, told apart when they clash', () => {
    expect(codeFromName('Assets:Bank:Checking')).to.equal('Assets.Bank.Checking');
    expect(codeFromName('Ausgaben:Büro Bedarf')).to.equal('Ausgaben.B-ro-Bedarf');
    // A name past 32 characters keeps its first 23 and a hash of the whole: two such names stay apart.
    const long = codeFromName('Expenses:A very long account name:with parts');
    expect(long).to.match(/^Expenses\.A-very-long-ac-[0-9a-f]{8}$/);
    expect(codeFromName('Expenses:A very long account name:with part')).not.to.equal(long);
    const meta: Record<string, Record<string, string>> = { 'Assets:1200': { code: '1200' }, 'Assets:X y': {} };
    const codes = accountCodes(['Assets:X y', 'Assets:X-y', 'Assets:1200'], (n) => meta[n] ?? {});
    expect(Object.fromEntries(codes)).to.deep.equal({
      'Assets:1200': '1200',
      'Assets:X y': 'Assets.X-y',
      'Assets:X-y': 'Assets.X-y-2',
    });
  });

  it('types an account by its type tag, else its root; none for an unknown root', () => {
    expect(accountType('Assets:Bank', {})).to.equal('asset');
    expect(accountType('Revenues:Sales', {})).to.equal('income');
    expect(accountType('Equity:1200', { type: 'A' })).to.equal('asset');
    expect(accountType('Checking', {})).to.equal(null);
  });

  it("scans hledger's account directives and tags, and what the tools do not refuse with a line", () => {
    expect(commentTags(' type:A, code:1200, name:Bank; main')).to.deep.equal({
      type: 'A',
      code: '1200',
      name: 'Bank; main',
    });
    const scan = new JournalScan('hledger');
    for (const line of [
      'account Assets:1200  ; type:A, code:1200',
      '  ; name:Bank',
      '2025-01-01 pay @ home',
      '    Assets:A  1 EUR @ 1 USD',
      '    Assets:B  ; not @ here',
      'P 2025-01-01 EUR 1.1 USD',
      'include x.journal',
    ])
      scan.push(line);
    expect(scan.accounts).to.deep.equal([
      { name: 'Assets:1200', line: 1, meta: { type: 'A', code: '1200', name: 'Bank' } },
    ]);
    expect(scan.refusals.map((r) => [r.line, r.code])).to.deep.equal([
      [4, 'ledger_price'],
      [6, 'ledger_price'],
      [7, 'ledger_include'],
    ]);
  });

  it("reads an hledger JSON transaction: payee and narration at the first |, tags, the posting's own tags", () => {
    const amount = (m: number, places: number) => ({
      acommodity: 'EUR',
      aprice: null,
      aquantity: { decimalMantissa: m, decimalPlaces: places },
    });
    const t: HledgerTransaction = {
      tdate: '2025-01-02',
      tdescription: 'Acme / GmbH | INV-1 | thanks',
      ttags: [
        ['id', 'bt_1'],
        ['bank-account', 'ba_1'],
      ],
      tpostings: [
        {
          paccount: 'Assets:1200:Ba-1',
          pamount: [amount(12000, 2)],
          pcomment: '',
          ptype: 'RegularPosting',
          pbalanceassertion: null,
        },
        {
          paccount: 'Assets:1400',
          pamount: [amount(-120, 0)],
          pcomment: 'entry:le_1\n',
          ptype: 'RegularPosting',
          pbalanceassertion: null,
        },
      ],
      tsourcepos: [{ sourceLine: 12 }, { sourceLine: 15 }],
    };
    expect(hledgerTransaction(t, () => false)).to.deep.equal({
      line: 12,
      date: '2025-01-02',
      payee: 'Acme / GmbH',
      narration: 'INV-1 | thanks',
      meta: { id: 'bt_1', 'bank-account': 'ba_1' },
      postings: [
        { account: 'Assets:1200:Ba-1', amount: eur('12000'), meta: {} },
        { account: 'Assets:1400', amount: eur('-120', 0), meta: { entry: 'le_1' } },
      ],
    });
  });

  it("maps the export's bank transaction back to a transaction with its link, the rest left to suspense", () => {
    const journal: ReadJournal = {
      accounts: [
        { name: 'Assets:1200', line: 1, meta: { code: '1200' } },
        { name: 'Assets:1200:Ba-1', line: 2, meta: { 'bank-account': 'ba_1', name: 'Main' } },
        { name: 'Assets:1400', line: 3, meta: { code: '1400', name: 'Receivables' } },
        { name: 'Income:8400', line: 4, meta: { code: '8400', inactive: 'true' } },
        { name: 'Assets:SUSPENSE', line: 5, meta: { code: 'SUSPENSE' } },
      ],
      transactions: [
        {
          line: 10,
          date: '2025-01-01',
          payee: 'cp_a',
          narration: 'Invoice',
          meta: { id: 'le_1', counterparty: 'cp_a', reference: 'R1' },
          postings: [
            { account: 'Assets:1400', amount: eur('10000'), meta: {} },
            { account: 'Income:8400', amount: eur('-10000'), meta: {} },
          ],
        },
        {
          line: 20,
          date: '2025-01-05',
          payee: 'Acme',
          narration: 'INV',
          meta: { id: 'bt_1', 'bank-account': 'ba_1', counterparty: 'cp_a' },
          postings: [
            { account: 'Assets:1200:Ba-1', amount: eur('12000'), meta: {} },
            { account: 'Assets:1400', amount: eur('-10000'), meta: { entry: 'le_1' } },
            { account: 'Assets:SUSPENSE', amount: eur('-2000'), meta: {} },
          ],
        },
      ],
      balances: [],
    };
    const result = journalToBooks(journal, { orgId: 'org_x' });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    const { file } = result;
    expect(file.org).to.deep.include({ id: 'org_x', base_currency: 'EUR', settlement_accounts: ['1400'] });
    expect(file.accounts).to.deep.equal([
      { code: '1200', name: '1200', type: 'asset', active: true },
      { code: '1400', name: 'Receivables', type: 'asset', active: true },
      { code: '8400', name: '8400', type: 'income', active: false },
      { code: 'SUSPENSE', name: 'SUSPENSE', type: 'asset', active: true },
    ]);
    expect(file.ledger_entries).to.deep.equal([
      {
        id: 'le_1',
        entry_date: '2025-01-01',
        description: 'Invoice',
        reference: 'R1',
        counterparty_id: 'cp_a',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 10000, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 10000 },
        ],
        status: 'posted',
      },
    ]);
    expect(file.bank_accounts).to.deep.equal([
      {
        id: 'ba_1',
        name: 'Main',
        currency: 'EUR',
        ledger_account: '1200',
        reconciled_through: null,
        opening_balance_minor: 0,
      },
    ]);
    expect(file.bank_transactions.map((t) => [t.id, t.amount_minor, t.counterparty_id])).to.deep.equal([
      ['bt_1', 12000, 'cp_a'],
    ]);
    expect(file.bank_links).to.deep.equal([
      {
        id: 'bl_org_x_L20_1',
        bank_transaction_id: 'bt_1',
        ledger_entry_id: 'le_1',
        amount_minor: 10000,
        created_at: '2025-01-05T00:00:00.000Z',
        created_by: 'ledger-import',
      },
    ]);
  });

  it('refuses, with their lines, a transaction in two currencies, one that does not balance and an account without a type', () => {
    const journal: ReadJournal = {
      accounts: [],
      transactions: [
        {
          line: 3,
          date: '2025-01-01',
          payee: 'x',
          narration: '',
          meta: {},
          postings: [
            { account: 'Assets:A', amount: eur('100'), meta: {} },
            { account: 'Assets:B', amount: { currency: 'USD', mantissa: '-100', places: 2 }, meta: {} },
          ],
        },
        {
          line: 8,
          date: '2025-01-02',
          payee: 'x',
          narration: '',
          meta: {},
          postings: [
            { account: 'Assets:A', amount: eur('100'), meta: {} },
            { account: 'Assets:B', amount: eur('-99'), meta: {} },
          ],
        },
        {
          line: 12,
          date: '2025-01-03',
          payee: 'x',
          narration: '',
          meta: {},
          postings: [
            { account: 'Assets:A', amount: eur('100'), meta: {} },
            { account: 'Checking', amount: eur('-100'), meta: {} },
          ],
        },
      ],
      balances: [],
    };
    const result = journalToBooks(journal, { orgId: 'org_x' });
    expect(result.ok ? [] : result.refusals.map((r) => [r.line, r.code])).to.deep.equal([
      [3, 'ledger_two_currencies'],
      [8, 'ledger_unbalanced'],
      [12, 'ledger_account_type'],
    ]);
  });

  it('a reversal names the entry it reverses: that one is reversed by it', () => {
    const entry = (line: number, id: string, sign: string, meta: Record<string, string> = {}) => ({
      line,
      date: '2025-01-01',
      payee: 'cp_a',
      narration: '',
      meta: { id, counterparty: 'cp_a', ...meta },
      postings: [
        { account: 'Assets:1400', amount: eur(`${sign}100`), meta: {} },
        { account: 'Income:8400', amount: eur(`${sign === '-' ? '' : '-'}100`), meta: {} },
      ],
    });
    const result = journalToBooks(
      {
        accounts: [],
        transactions: [entry(1, 'le_1', ''), entry(5, 'le_2', '-', { 'reversal-of': 'le_1' })],
        balances: [],
      },
      { orgId: 'org_x' },
    );
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.file.ledger_entries.map((e) => [e.id, e.status, e.reversal_of, e.reversed_by])).to.deep.equal([
      ['le_1', 'reversed', undefined, 'le_2'],
      ['le_2', 'posted', 'le_1', undefined],
    ]);
  });

  it('operation and approved-by are kept as the provenance of the entry, the transaction and the link', () => {
    const result = journalToBooks(
      {
        accounts: [],
        transactions: [
          {
            line: 1,
            date: '2025-01-01',
            payee: 'cp_a',
            narration: '',
            meta: { id: 'le_1', counterparty: 'cp_a', operation: 'op_1', 'approved-by': 'bob agent:dave' },
            postings: [
              { account: 'Assets:1400', amount: eur('100'), meta: {} },
              { account: 'Income:8400', amount: eur('-100'), meta: {} },
            ],
          },
          {
            line: 5,
            date: '2025-01-02',
            payee: 'Acme',
            narration: 'paid',
            meta: { id: 'bt_1', 'bank-account': 'ba_main', operation: 'op_2' },
            postings: [
              { account: 'Assets:1200:Ba-main', amount: eur('100'), meta: {} },
              {
                account: 'Assets:1400',
                amount: eur('-100'),
                meta: { entry: 'le_1', operation: 'op_3', 'approved-by': 'carol' },
              },
            ],
          },
        ],
        balances: [],
      },
      { orgId: 'org_x', bankAccounts: new Map([['Assets:1200:Ba-main', 'ba_main']]) },
    );
    expect(result.ok, JSON.stringify(result)).to.equal(true);
    if (!result.ok) return;
    expect(result.file.ledger_entries.map((e) => e.provenance)).to.deep.equal([
      { operation: 'op_1', approved_by: ['bob', 'agent:dave'] },
    ]);
    expect(result.file.bank_transactions.map((t) => t.provenance)).to.deep.equal([
      { operation: 'op_2', approved_by: [] },
    ]);
    expect(result.file.bank_links.map((l) => [l.ledger_entry_id, l.provenance])).to.deep.equal([
      ['le_1', { operation: 'op_3', approved_by: ['carol'] }],
    ]);
  });
});
