// The books export's pure parts (shared/domain/ledger-export/,
// docs/guide/ledger-exchange.md), with exact values: account names, amounts,
// and the whole text of a small journal in both syntaxes.
import { expect } from 'chai';
import { accountComponent, accountNames } from '../../shared/domain/ledger-export/account-names.js';
import { beancountLines } from '../../shared/domain/ledger-export/beancount.js';
import { hledgerLines } from '../../shared/domain/ledger-export/hledger.js';
import { decimalAmount, exportJournal, type ExportBooks } from '../../shared/domain/ledger-export/journal.js';

function books(overrides: Partial<ExportBooks> = {}): ExportBooks {
  return {
    org_id: 'org_1',
    through: null,
    settlementAccounts: ['1400'],
    chart: [
      { code: '1200', name: 'Bank', type: 'asset', active: true },
      { code: '1400', name: 'Receivables', type: 'asset', active: true },
      { code: '8400', name: 'Revenue', type: 'income', active: false },
    ],
    accounts: [
      {
        id: 'ba_main',
        name: 'Main',
        currency: 'EUR',
        ledger_account: '1200',
        opening_balance_minor: 1_000,
        reconciled_through: { date: '2026-03-05', balance_minor: 13_000 },
      },
    ],
    entries: [
      {
        id: 'le_1',
        entry_date: '2026-03-01',
        currency: 'EUR',
        description: 'Invoice; "one"',
        reference: 'INV-1, A',
        counterparty_id: 'cp_a',
        lines: [
          { account: '1400', debit_minor: 12_000, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 12_000 },
        ],
      },
    ],
    transactions: [
      {
        id: 'bt_1',
        bank_account_id: 'ba_main',
        booking_date: '2026-03-05',
        amount_minor: 12_000,
        currency: 'EUR',
        counterparty_id: 'cp_a',
        counterparty_name: 'Acme | GmbH',
        remittance_info: 'INV-1\nthanks',
      },
    ],
    links: [{ bank_transaction_id: 'bt_1', ledger_entry_id: 'le_1', amount_minor: 12_000 }],
    ...overrides,
  };
}

describe('books export: names and amounts', () => {
  it('makes a component both tools accept from any code', () => {
    expect(accountComponent('1200')).to.equal('1200');
    expect(accountComponent('ba_main')).to.equal('Ba-main');
    expect(accountComponent('Kasse 1')).to.equal('Kasse-1');
    expect(accountComponent('_x')).to.equal('X-x');
    expect(accountComponent('ä1')).to.equal('X-1');
  });

  it("names a code by its chart type's root, assets for bank and settlement accounts without one, and tells clashes apart", () => {
    const names = accountNames({
      codes: ['a.1', 'a-1', '1400', '9000', 'OPENING-BALANCES'],
      chartTypes: new Map([['9000', 'expense']]),
      assetCodes: new Set(['1400']),
    });
    expect([...names]).to.deep.equal([
      ['1400', 'Assets:1400'],
      ['9000', 'Expenses:9000'],
      ['OPENING-BALANCES', 'Equity:OPENING-BALANCES'],
      ['a-1', 'Equity:A-1'],
      ['a.1', 'Equity:A-1-2'],
    ]);
  });

  it('writes minor units in the currency’s decimals, exactly', () => {
    expect(decimalAmount(12_345, 'EUR')).to.equal('123.45');
    expect(decimalAmount(-5, 'EUR')).to.equal('-0.05');
    expect(decimalAmount(1_500, 'JPY')).to.equal('1500');
    expect(decimalAmount(1, 'KWD')).to.equal('0.001');
    expect(decimalAmount(Number.MAX_SAFE_INTEGER, 'EUR')).to.equal('90071992547409.91');
  });
});

describe('books export: the text', () => {
  it('hledger: accounts with type and code tags, descriptions without ; or |, the reconciled balance asserted', () => {
    expect([...hledgerLines(exportJournal(books()))]).to.deep.equal([
      '; bookstage books of org_1, every record',
      '; every reconciled balance agrees with the books',
      '',
      'decimal-mark .',
      '',
      'account Assets:1400  ; type:A, code:1400, name:Receivables',
      'account Income:8400  ; type:R, code:8400, name:Revenue, inactive:true',
      'account Assets:1200  ; type:A, code:1200, name:Bank',
      'account Assets:1200:Ba-main  ; type:A, bank-account:ba_main, name:Main, reconciled-through:2026-03-05, reconciled-balance:130.00 EUR',
      'account Equity:OPENING-BALANCES  ; type:E, code:OPENING-BALANCES',
      '',
      '2026-03-01 * Acme / GmbH | Invoice, "one"  ; id:le_1, reference:INV-1; A, counterparty:cp_a',
      '    Assets:1400  120.00 EUR',
      '    Income:8400  -120.00 EUR',
      '',
      '2026-03-04 * Main | Opening balance  ; bank-account:ba_main',
      '    Assets:1200:Ba-main  10.00 EUR',
      '    Equity:OPENING-BALANCES  -10.00 EUR',
      '',
      '2026-03-05 * Acme / GmbH | INV-1 thanks  ; id:bt_1, bank-account:ba_main, counterparty:cp_a',
      '    Assets:1200:Ba-main  120.00 EUR',
      '    Assets:1400  -120.00 EUR  ; entry:le_1',
      '',
      '2026-03-05 * Reconciled balance  ; bank-account:ba_main',
      '    Assets:1200:Ba-main  0 EUR = 130.00 EUR',
    ]);
  });

  it('beancount: opens with metadata, escaped strings, the balance asserted on the day after', () => {
    expect([...beancountLines(exportJournal(books()))]).to.deep.equal([
      '; bookstage books of org_1, every record',
      '; every reconciled balance agrees with the books',
      '',
      '2026-03-01 open Assets:1400',
      '  code: "1400"',
      '  name: "Receivables"',
      '2026-03-01 open Income:8400',
      '  code: "8400"',
      '  name: "Revenue"',
      '  inactive: "true"',
      '2026-03-04 open Assets:1200',
      '  code: "1200"',
      '  name: "Bank"',
      '2026-03-04 open Assets:1200:Ba-main',
      '  bank-account: "ba_main"',
      '  name: "Main"',
      '  reconciled-through: "2026-03-05"',
      '  reconciled-balance: "130.00 EUR"',
      '2026-03-04 open Equity:OPENING-BALANCES',
      '  code: "OPENING-BALANCES"',
      '',
      '2026-03-01 * "Acme | GmbH" "Invoice; \\"one\\""',
      '  id: "le_1"',
      '  reference: "INV-1, A"',
      '  counterparty: "cp_a"',
      '  Assets:1400  120.00 EUR',
      '  Income:8400  -120.00 EUR',
      '',
      '2026-03-04 * "Main" "Opening balance"',
      '  bank-account: "ba_main"',
      '  Assets:1200:Ba-main  10.00 EUR',
      '  Equity:OPENING-BALANCES  -10.00 EUR',
      '',
      '2026-03-05 * "Acme | GmbH" "INV-1 thanks"',
      '  id: "bt_1"',
      '  bank-account: "ba_main"',
      '  counterparty: "cp_a"',
      '  Assets:1200:Ba-main  120.00 EUR',
      '  Assets:1400  -120.00 EUR',
      '    entry: "le_1"',
      '',
      '2026-03-06 balance Assets:1200:Ba-main  130.00 EUR',
      '  bank-account: "ba_main"',
    ]);
  });

  it('a reconciled balance the books do not give is summarised at the top and left as a comment, never asserted', () => {
    const differing = books({
      accounts: [{ ...books().accounts[0]!, reconciled_through: { date: '2026-03-05', balance_minor: 12_999 } }],
    });
    const lines = [...hledgerLines(exportJournal(differing))];
    expect(lines.slice(0, 3)).to.deep.equal([
      '; bookstage books of org_1, every record',
      '; reconciled balances the books do not give (transactions dated inside a reconciled period but left out of it):',
      ';   ba_main reconciled through 2026-03-05: statement 129.99 EUR, books 130.00 EUR',
    ]);
    expect(lines.at(-1)).to.equal('; ba_main reconciled through 2026-03-05: statement 129.99 EUR, books 130.00 EUR');
    expect(lines.filter((l) => l.includes(' = '))).to.deep.equal([]);
  });

  it('through a day: later records, and a reconciliation after it, are left out', () => {
    const text = [...beancountLines(exportJournal(books({ through: '2026-03-04' })))];
    expect(text[0]).to.equal('; bookstage books of org_1, through 2026-03-04');
    expect(text.some((l) => !l.startsWith(';') && (l.includes('bt_1') || l.includes(' balance ')))).to.equal(false);
  });

  it("a record an applied operation wrote names the operation and its approvers; the last operation's wins", () => {
    const withOps = books({
      links: [{ id: 'lnk_1', bank_transaction_id: 'bt_1', ledger_entry_id: 'le_1', amount_minor: 12_000 }],
      operations: [
        { id: 'op_a', approvers: ['carol'], records: [{ collection: 'ledger_entries', id: 'le_1' }] },
        {
          id: 'op_b',
          approvers: ['bob', 'agent:dave'],
          records: [
            { collection: 'ledger_entries', id: 'le_1' },
            { collection: 'bank_links', id: 'lnk_1' },
          ],
        },
      ],
    });
    const h = [...hledgerLines(exportJournal(withOps))];
    expect(h).to.include.members([
      '2026-03-01 * Acme / GmbH | Invoice, "one"  ; id:le_1, reference:INV-1; A, counterparty:cp_a, operation:op_b, approved-by:bob agent:dave',
      '2026-03-05 * Acme / GmbH | INV-1 thanks  ; id:bt_1, bank-account:ba_main, counterparty:cp_a',
      '    Assets:1400  -120.00 EUR  ; entry:le_1, operation:op_b, approved-by:bob agent:dave',
    ]);
    const b = [...beancountLines(exportJournal(withOps))];
    const at = b.indexOf('  Assets:1400  -120.00 EUR');
    expect(b.slice(at, at + 4)).to.deep.equal([
      '  Assets:1400  -120.00 EUR',
      '    entry: "le_1"',
      '    operation: "op_b"',
      '    approved-by: "bob agent:dave"',
    ]);
    expect(b).to.include.members(['  operation: "op_b"', '  approved-by: "bob agent:dave"']);
    // Without operations the file is as before.
    expect([...hledgerLines(exportJournal(books()))].some((l) => l.includes('operation:'))).to.equal(false);
  });

  it('a reversal names the entry it reverses', () => {
    const [entry] = books().entries;
    const reversal = {
      ...entry!,
      id: 'le_2',
      reversal_of: 'le_1',
      lines: entry!.lines.map((l) => ({ ...l, debit_minor: l.credit_minor, credit_minor: l.debit_minor })),
    };
    const h = [...hledgerLines(exportJournal(books({ entries: [entry!, reversal] })))];
    expect(h).to.include(
      '2026-03-01 * Acme / GmbH | Invoice, "one"  ; id:le_2, reference:INV-1; A, counterparty:cp_a, reversal-of:le_1',
    );
  });

  it("a record's own provenance is written where no applied operation names it; an applied one wins", () => {
    const base = books();
    const kept = books({
      entries: base.entries.map((e) => ({ ...e, provenance: { operation: 'op_old', approved_by: ['carol'] } })),
      transactions: base.transactions.map((t) => ({ ...t, provenance: { operation: 'op_tx', approved_by: [] } })),
      links: [
        {
          id: 'lnk_1',
          bank_transaction_id: 'bt_1',
          ledger_entry_id: 'le_1',
          amount_minor: 12_000,
          provenance: { operation: 'op_link', approved_by: ['bob', 'agent:dave'] },
        },
      ],
      operations: [{ id: 'op_new', approvers: ['erin'], records: [{ collection: 'bank_links', id: 'lnk_1' }] }],
    });
    expect([...hledgerLines(exportJournal(kept))]).to.include.members([
      '2026-03-01 * Acme / GmbH | Invoice, "one"  ; id:le_1, reference:INV-1; A, counterparty:cp_a, operation:op_old, approved-by:carol',
      '2026-03-05 * Acme / GmbH | INV-1 thanks  ; id:bt_1, bank-account:ba_main, counterparty:cp_a, operation:op_tx',
      '    Assets:1400  -120.00 EUR  ; entry:le_1, operation:op_new, approved-by:erin',
    ]);
  });
});
