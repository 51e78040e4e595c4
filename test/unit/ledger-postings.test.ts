// The books as a general ledger (shared/domain/ledger-postings.ts,
// shared/domain/trial-balance.ts; docs/design/ledger-postings.md), with exact values.
import { expect } from 'chai';
import {
  OPENING_BALANCE_ACCOUNT,
  SUSPENSE_ACCOUNT,
  bankSide,
  ledgerTransactions,
  settlementAccountOf,
  type PostingBooks,
} from '../../shared/domain/ledger-postings.js';
import { trialBalance } from '../../shared/domain/trial-balance.js';
import { dayAfter, dayBefore } from '../../shared/domain/dates.js';

const SETTLEMENT = ['1400', '1600'];

/** A sale of 120.00 (receivable on 1400) and a bank fee bill of 3.50 (payable on 1600). */
function books(overrides: Partial<PostingBooks> = {}): PostingBooks {
  return {
    settlementAccounts: SETTLEMENT,
    accounts: [{ id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: 10_000 }],
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
        id: 'le_fee',
        entry_date: '2026-03-02',
        currency: 'EUR',
        lines: [
          { account: '6855', debit_minor: 350, credit_minor: 0 },
          { account: '1600', debit_minor: 0, credit_minor: 350 },
        ],
      },
    ],
    transactions: [
      { id: 'bt_in', bank_account_id: 'ba_1', booking_date: '2026-03-05', amount_minor: 12_000, currency: 'EUR' },
      { id: 'bt_out', bank_account_id: 'ba_1', booking_date: '2026-03-03', amount_minor: -350, currency: 'EUR' },
    ],
    links: [{ bank_transaction_id: 'bt_in', ledger_entry_id: 'le_sale', amount_minor: 9_000 }],
    ...overrides,
  };
}

describe('the books as a general ledger', () => {
  it('the day before and after cross months, years and leap days', () => {
    expect(dayBefore('2026-03-01')).to.equal('2026-02-28');
    expect(dayBefore('2024-03-01')).to.equal('2024-02-29');
    expect(dayBefore('2026-01-01')).to.equal('2025-12-31');
    expect(dayAfter('2024-02-28')).to.equal('2024-02-29');
    expect(dayAfter('2025-12-31')).to.equal('2026-01-01');
  });

  it("an entry's settlement account is its first line on one of the organisation's; none means suspense", () => {
    const lines = [
      { account: '8400', debit_minor: 0, credit_minor: 5 },
      { account: '1600', debit_minor: 0, credit_minor: 1 },
      { account: '1400', debit_minor: 6, credit_minor: 0 },
    ];
    expect(settlementAccountOf({ lines }, SETTLEMENT)).to.equal('1600');
    expect(settlementAccountOf({ lines: lines.slice(0, 1) }, SETTLEMENT)).to.equal(SUSPENSE_ACCOUNT);
  });

  it("money in is a debit on the bank's account, balanced by its links' settlement accounts and suspense for the rest", () => {
    const bank = bankSide(books()).find((t) => t.source.kind === 'bank_transaction' && t.source.id === 'bt_in');
    expect(bank).to.deep.equal({
      date: '2026-03-05',
      currency: 'EUR',
      source: { kind: 'bank_transaction', id: 'bt_in', bank_account_id: 'ba_1' },
      postings: [
        { account: '1200', debit_minor: 12_000, credit_minor: 0, bank_account_id: 'ba_1' },
        { account: '1400', debit_minor: 0, credit_minor: 9_000, ledger_entry_id: 'le_sale' },
        { account: SUSPENSE_ACCOUNT, debit_minor: 0, credit_minor: 3_000 },
      ],
    });
  });

  it('money out is a credit on the bank account; unlinked, it is balanced on suspense', () => {
    const bank = bankSide(books()).find((t) => t.source.kind === 'bank_transaction' && t.source.id === 'bt_out');
    expect(bank?.postings).to.deep.equal([
      { account: '1200', debit_minor: 0, credit_minor: 350, bank_account_id: 'ba_1' },
      { account: SUSPENSE_ACCOUNT, debit_minor: 350, credit_minor: 0 },
    ]);
  });

  it('a transaction linked beyond its amount balances on suspense the other way', () => {
    const over = books({ links: [{ bank_transaction_id: 'bt_in', ledger_entry_id: 'le_sale', amount_minor: 12_500 }] });
    const bank = bankSide(over).find((t) => t.source.kind === 'bank_transaction' && t.source.id === 'bt_in');
    expect(bank?.postings).to.deep.equal([
      { account: '1200', debit_minor: 12_000, credit_minor: 0, bank_account_id: 'ba_1' },
      { account: '1400', debit_minor: 0, credit_minor: 12_500, ledger_entry_id: 'le_sale' },
      { account: SUSPENSE_ACCOUNT, debit_minor: 500, credit_minor: 0 },
    ]);
  });

  it("the opening balance is dated the day before the account's first transaction, against the opening equity account", () => {
    const opening = bankSide(books()).find((t) => t.source.kind === 'opening_balance');
    expect(opening).to.deep.equal({
      date: '2026-03-02',
      currency: 'EUR',
      source: { kind: 'opening_balance', bank_account_id: 'ba_1' },
      postings: [
        { account: '1200', debit_minor: 10_000, credit_minor: 0, bank_account_id: 'ba_1' },
        { account: OPENING_BALANCE_ACCOUNT, debit_minor: 0, credit_minor: 10_000 },
      ],
    });
  });

  it('an overdrawn opening balance is a credit; a zero one or one without transactions posts nothing', () => {
    const overdrawn = books({
      accounts: [{ id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: -70 }],
    });
    expect(bankSide(overdrawn).find((t) => t.source.kind === 'opening_balance')?.postings).to.deep.equal([
      { account: '1200', debit_minor: 0, credit_minor: 70, bank_account_id: 'ba_1' },
      { account: OPENING_BALANCE_ACCOUNT, debit_minor: 70, credit_minor: 0 },
    ]);
    const zero = books({
      accounts: [{ id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: 0 }],
    });
    expect(bankSide(zero).filter((t) => t.source.kind === 'opening_balance')).to.deep.equal([]);
    expect(bankSide(books({ transactions: [], links: [] }))).to.deep.equal([]);
  });

  it('orders the ledger by date, entries before the bank side on a day, then by id', () => {
    const order = ledgerTransactions(books()).map((t) => [t.date, t.source.kind]);
    expect(order).to.deep.equal([
      ['2026-03-01', 'entry'],
      ['2026-03-02', 'entry'],
      ['2026-03-02', 'opening_balance'],
      ['2026-03-03', 'bank_transaction'],
      ['2026-03-05', 'bank_transaction'],
    ]);
  });

  it('books of 200,000 bank transactions give 200,000 bank-side transactions and the opening balance', () => {
    const transactions = Array.from({ length: 200_000 }, (_, i) => ({
      id: `bt_${String(i).padStart(6, '0')}`,
      bank_account_id: 'ba_1',
      booking_date: '2026-03-02',
      amount_minor: -1,
      currency: 'EUR',
    }));
    const ledger = ledgerTransactions(books({ entries: [], transactions, links: [] }));
    expect(ledger.filter((t) => t.source.kind === 'bank_transaction')).to.have.length(200_000);
    expect(ledger.filter((t) => t.source.kind === 'opening_balance')).to.have.length(1);
  });

  it('every ledger transaction balances', () => {
    for (const tx of ledgerTransactions(books())) {
      const debit = tx.postings.reduce((s, p) => s + p.debit_minor, 0);
      const credit = tx.postings.reduce((s, p) => s + p.credit_minor, 0);
      expect(debit, JSON.stringify(tx.source)).to.equal(credit);
    }
  });
});

describe('the trial balance', () => {
  it('sums each account and currency up to the day, in code order', () => {
    expect(trialBalance(ledgerTransactions(books()), '2026-03-04')).to.deep.equal([
      { account: '1200', currency: 'EUR', debit_minor: 10_000, credit_minor: 350, balance_minor: 9_650 },
      { account: '1400', currency: 'EUR', debit_minor: 12_000, credit_minor: 0, balance_minor: 12_000 },
      { account: '1600', currency: 'EUR', debit_minor: 0, credit_minor: 350, balance_minor: -350 },
      { account: '6855', currency: 'EUR', debit_minor: 350, credit_minor: 0, balance_minor: 350 },
      { account: '8400', currency: 'EUR', debit_minor: 0, credit_minor: 12_000, balance_minor: -12_000 },
      {
        account: OPENING_BALANCE_ACCOUNT,
        currency: 'EUR',
        debit_minor: 0,
        credit_minor: 10_000,
        balance_minor: -10_000,
      },
      { account: SUSPENSE_ACCOUNT, currency: 'EUR', debit_minor: 350, credit_minor: 0, balance_minor: 350 },
    ]);
  });

  it('keeps currencies apart and leaves out what is dated after the day', () => {
    const usd = books({
      accounts: [
        { id: 'ba_1', currency: 'EUR', ledger_account: '1200', opening_balance_minor: 0 },
        { id: 'ba_2', currency: 'USD', ledger_account: '1200', opening_balance_minor: 0 },
      ],
      transactions: [
        { id: 'bt_e', bank_account_id: 'ba_1', booking_date: '2026-03-05', amount_minor: 100, currency: 'EUR' },
        { id: 'bt_u', bank_account_id: 'ba_2', booking_date: '2026-03-05', amount_minor: 200, currency: 'USD' },
        { id: 'bt_late', bank_account_id: 'ba_2', booking_date: '2026-03-06', amount_minor: 999, currency: 'USD' },
      ],
      entries: [],
      links: [],
    });
    expect(trialBalance(ledgerTransactions(usd), '2026-03-05').filter((r) => r.account === '1200')).to.deep.equal([
      { account: '1200', currency: 'EUR', debit_minor: 100, credit_minor: 0, balance_minor: 100 },
      { account: '1200', currency: 'USD', debit_minor: 200, credit_minor: 0, balance_minor: 200 },
    ]);
  });

  it('answers totals beyond 2^53 − 1 exactly, as decimal strings', () => {
    const big = Number.MAX_SAFE_INTEGER;
    const entry = (id: string) => ({
      id,
      entry_date: '2026-01-01',
      currency: 'EUR',
      lines: [
        { account: '1', debit_minor: big, credit_minor: 0 },
        { account: '2', debit_minor: 0, credit_minor: big },
      ],
    });
    const rows = trialBalance(
      ledgerTransactions(books({ accounts: [], transactions: [], links: [], entries: [entry('a'), entry('b')] })),
      '2026-01-01',
    );
    expect(rows[0]).to.deep.equal({
      account: '1',
      currency: 'EUR',
      debit_minor: '18014398509481982',
      credit_minor: 0,
      balance_minor: '18014398509481982',
    });
  });
});
