// The chart of accounts' pure rules (shared/domain/chart-of-accounts.ts,
// docs/guide/importing-books.md "Chart of accounts"), with exact values.
import { expect } from 'chai';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { checkBooksIntegrity } from '../../shared/domain/books-integrity.js';
import {
  accountCodesUsed,
  duplicateCodes,
  uncoveredCodes,
  unknownAccounts,
  type LedgerAccount,
} from '../../shared/domain/chart-of-accounts.js';

const account = (code: string, active = true): LedgerAccount => ({
  code,
  name: `Account ${code}`,
  type: 'asset',
  active,
});
const CHART = [account('1200'), account('1400'), account('1600'), account('4980', false), account('6855')];

function file(accounts?: LedgerAccount[]): BooksFile {
  return {
    org: {
      id: 'org_1',
      name: 'Org',
      base_currency: 'EUR',
      lock_date: null,
      settlement_accounts: ['1400', '1600'],
      require_distinct_approver: false,
    },
    ...(accounts ? { accounts } : {}),
    ledger_entries: [
      {
        id: 'le_1',
        entry_date: '2026-01-02',
        description: 'Invoice',
        reference: 'R1',
        counterparty_id: 'cp_1',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 100, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 100 },
        ],
        status: 'posted',
      },
      {
        id: 'le_2',
        entry_date: '2026-01-03',
        description: 'Invoice',
        reference: 'R2',
        counterparty_id: 'cp_1',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 50, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 50 },
        ],
        status: 'posted',
      },
    ],
    bank_accounts: [
      {
        id: 'ba_1',
        name: 'Main',
        currency: 'EUR',
        ledger_account: '1200',
        reconciled_through: null,
        opening_balance_minor: 0,
      },
    ],
    bank_transactions: [],
    bank_links: [],
    inbox_documents: [],
  };
}

describe('chart of accounts rules', () => {
  it('unknownAccounts: absent and inactive codes, each once, in byte order', () => {
    expect(unknownAccounts(CHART, ['6855', '1600', '9999', '4980', '9999', '0100'])).to.deep.equal([
      '0100',
      '4980',
      '9999',
    ]);
    expect(unknownAccounts(CHART, ['6855', '1600'])).to.deep.equal([]);
    expect(unknownAccounts(CHART, [])).to.deep.equal([]);
  });

  it('unknownAccounts: byte order puts upper case before lower case', () => {
    expect(unknownAccounts(CHART, ['b1', 'B1', 'a1', '_1'])).to.deep.equal(['B1', '_1', 'a1', 'b1']);
  });

  it('unknownAccounts: without a chart every code is accepted; a chart of inactive accounts accepts none', () => {
    expect(unknownAccounts([], ['anything', '6855'])).to.deep.equal([]);
    expect(unknownAccounts([account('1400', false)], ['1400'])).to.deep.equal(['1400']);
  });

  it('accountCodesUsed: settlement accounts, bank ledger accounts, then every line, with pointers', () => {
    expect(accountCodesUsed(file())).to.deep.equal([
      { pointer: '/org/settlement_accounts/0', code: '1400' },
      { pointer: '/org/settlement_accounts/1', code: '1600' },
      { pointer: '/bank_accounts/0/ledger_account', code: '1200' },
      { pointer: '/ledger_entries/0/lines/0/account', code: '1400' },
      { pointer: '/ledger_entries/0/lines/1/account', code: '8400' },
      { pointer: '/ledger_entries/1/lines/0/account', code: '1400' },
      { pointer: '/ledger_entries/1/lines/1/account', code: '8400' },
    ]);
  });

  it('uncoveredCodes: one problem per missing code at its first use, by code; inactive accounts cover', () => {
    const chart = new Set(['1200', '1400']);
    expect(uncoveredCodes(chart, accountCodesUsed(file()))).to.deep.equal([
      { pointer: '/org/settlement_accounts/1', message: 'account 1600 is not in the chart of accounts (used 1 time)' },
      {
        pointer: '/ledger_entries/0/lines/1/account',
        message: 'account 8400 is not in the chart of accounts (used 2 times)',
      },
    ]);
    expect(uncoveredCodes(new Set(['1200', '1400', '1600', '8400']), accountCodesUsed(file()))).to.deep.equal([]);
  });

  it('uncoveredCodes: no chart covers everything', () => {
    expect(uncoveredCodes(new Set(), accountCodesUsed(file()))).to.deep.equal([]);
  });

  it('duplicateCodes: each repeat points at the first', () => {
    expect(duplicateCodes([account('1'), account('2'), account('1'), account('1')])).to.deep.equal([
      { pointer: '/accounts/2/code', message: 'duplicates the code 1 of /accounts/0' },
      { pointer: '/accounts/3/code', message: 'duplicates the code 1 of /accounts/0' },
    ]);
  });

  it("a books file's integrity check refuses repeated codes", () => {
    expect(checkBooksIntegrity(file([account('1200'), account('1200', false)]))).to.deep.equal([
      { pointer: '/accounts/1/code', message: 'duplicates the code 1200 of /accounts/0' },
    ]);
  });
});
