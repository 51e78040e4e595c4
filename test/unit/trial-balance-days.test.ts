// The trial balance from kept day totals (shared/domain/trial-balance-days.ts):
// exact day rows, and the same rows as the trial balance over every posting.
import { expect } from 'chai';
import { bankSide, ledgerTransactions, type PostingBooks } from '../../shared/domain/ledger-postings.js';
import { trialBalance } from '../../shared/domain/trial-balance.js';
import { dayRows, trialBalanceFromDays } from '../../shared/domain/trial-balance-days.js';

const books: PostingBooks = {
  settlementAccounts: ['1400', '1600'],
  accounts: [
    { id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: 10_000 },
    { id: 'ba_2', currency: 'USD', ledger_account: '1210', opening_balance_minor: -500 },
  ],
  entries: [
    {
      id: 'le_sale',
      entry_date: '2026-03-01',
      currency: 'EUR',
      lines: [
        { account: '1400', debit_minor: 12_000, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 12_000 },
      ],
    },
    {
      id: 'le_zero',
      entry_date: '2026-03-05',
      currency: 'EUR',
      lines: [
        { account: '9000', debit_minor: 0, credit_minor: 0 },
        { account: '9001', debit_minor: 0, credit_minor: 0 },
      ],
    },
  ],
  transactions: [
    { id: 'bt_in', bank_account_id: 'ba_1', booking_date: '2026-03-05', amount_minor: 12_000, currency: 'EUR' },
    { id: 'bt_usd', bank_account_id: 'ba_2', booking_date: '2026-03-02', amount_minor: -700, currency: 'USD' },
  ],
  links: [{ bank_transaction_id: 'bt_in', ledger_entry_id: 'le_sale', amount_minor: 9_000 }],
};

describe('the trial balance from kept day totals', () => {
  const all = ledgerTransactions(books);
  const days = [...dayRows(all, ['2026-03-04'])].map(([date, rows]) => ({ date, rows }));
  const openings = bankSide(books).filter((tx) => tx.source.kind === 'opening_balance');

  it('sums each day per account and currency, leaves opening balances out, keeps a named day without postings empty', () => {
    expect(days.map((d) => d.date).sort()).to.deep.equal(['2026-03-01', '2026-03-02', '2026-03-04', '2026-03-05']);
    expect(days.find((d) => d.date === '2026-03-04')!.rows).to.deep.equal([]);
    expect(days.find((d) => d.date === '2026-03-05')!.rows).to.deep.equal([
      { account: '1200', currency: 'EUR', debit_minor: '12000', credit_minor: '0' },
      { account: '1400', currency: 'EUR', debit_minor: '0', credit_minor: '9000' },
      { account: '9000', currency: 'EUR', debit_minor: '0', credit_minor: '0' },
      { account: '9001', currency: 'EUR', debit_minor: '0', credit_minor: '0' },
      { account: 'SUSPENSE', currency: 'EUR', debit_minor: '0', credit_minor: '3000' },
    ]);
  });

  it('as of every day, the same rows as the trial balance over every posting', () => {
    for (const asOf of ['2026-02-28', '2026-03-01', '2026-03-02', '2026-03-04', '2026-03-05', '2026-12-31'])
      expect(trialBalanceFromDays(days, openings, asOf), asOf).to.deep.equal(trialBalance(all, asOf));
  });
});
