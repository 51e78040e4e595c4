// The kept figures' rules (shared/domain/book-figures.ts): what a
// counterparty's entries leave open is kept per currency, and a page of an
// account's list takes only the open figures of the account's currency.
import { expect } from 'chai';
import { counterpartyFigures, counterpartyPage } from '../../shared/domain/book-figures.js';
import type { CounterpartyEntry } from '../../shared/domain/book-reads.js';
import { invoiceLines } from '../helpers/books.js';

const SETTLEMENT = ['1400', '1600'];

/** A receivable (amount > 0: debit 1400) or payable (amount < 0: credit 1600) of |amount|. */
const entry = (id: string, cp: string, amount: number, currency: string): CounterpartyEntry => ({
  id,
  counterparty_id: cp,
  currency,
  status: 'posted',
  lines: invoiceLines(amount),
});

/** cp_a: EUR receivable 3000 (1000 linked from t1), USD payable 500; cp_b: EUR 800 settled by t3. */
function books() {
  const transactions = [
    {
      id: 't1',
      bank_account_id: 'ba_eur',
      booking_date: '2026-02-01',
      amount_minor: 3000,
      counterparty_id: 'cp_a',
      counterparty_name: 'A',
    },
    {
      id: 't2',
      bank_account_id: 'ba_usd',
      booking_date: '2026-02-03',
      amount_minor: -200,
      counterparty_id: 'cp_a',
      counterparty_name: 'A in dollars',
    },
    {
      id: 't3',
      bank_account_id: 'ba_eur',
      booking_date: '2026-02-02',
      amount_minor: 800,
      counterparty_id: 'cp_b',
      counterparty_name: 'B',
    },
  ];
  const entries = [entry('e1', 'cp_a', 3000, 'EUR'), entry('e2', 'cp_a', -500, 'USD'), entry('e3', 'cp_b', 800, 'EUR')];
  const links = [
    { bank_transaction_id: 't1', ledger_entry_id: 'e1', amount_minor: 1000 },
    { bank_transaction_id: 't3', ledger_entry_id: 'e3', amount_minor: 800 },
  ];
  return { transactions, entries, links };
}

describe('kept figures: open amounts per currency', () => {
  it('keeps what entries leave open per counterparty and currency, the latest name in the organisation, and each account row', () => {
    const b = books();
    expect(counterpartyFigures(['cp_a', 'cp_b', 'cp_a'], b.transactions, b.entries, b.links, SETTLEMENT)).to.deep.equal(
      {
        counterparties: [
          { counterparty_id: 'cp_a', name: 'A in dollars', name_key: '2026-02-03 t2' },
          { counterparty_id: 'cp_b', name: 'B', name_key: '2026-02-02 t3' },
        ],
        // cp_b's only entry is settled: no open figures in any currency.
        open: [
          { counterparty_id: 'cp_a', currency: 'EUR', open_receivable_minor: 2000, open_payable_minor: 0 },
          { counterparty_id: 'cp_a', currency: 'USD', open_receivable_minor: 0, open_payable_minor: 500 },
        ],
        accounts: [
          {
            bank_account_id: 'ba_eur',
            counterparty_id: 'cp_a',
            transactions: 1,
            unlinked_bank_minor: 2000,
            name: 'A',
            name_key: '2026-02-01 t1',
          },
          {
            bank_account_id: 'ba_eur',
            counterparty_id: 'cp_b',
            transactions: 1,
            unlinked_bank_minor: 0,
            name: 'B',
            name_key: '2026-02-02 t3',
          },
          {
            bank_account_id: 'ba_usd',
            counterparty_id: 'cp_a',
            transactions: 1,
            unlinked_bank_minor: 200,
            name: 'A in dollars',
            name_key: '2026-02-03 t2',
          },
        ],
      },
    );
  });

  it("a page merges the account's rows with the open figures of its currency; an open counterparty off the account takes its organisation name", () => {
    const b = books();
    const kept = counterpartyFigures(['cp_a', 'cp_b'], b.transactions, b.entries, b.links, SETTLEMENT);
    const usd = kept.open.filter((o) => o.currency === 'USD');
    const onUsd = kept.accounts.filter((a) => a.bank_account_id === 'ba_usd');
    expect(counterpartyPage(onUsd, usd, new Map(usd.map((o) => [o.counterparty_id, o])), new Map(), 50)).to.deep.equal([
      {
        counterparty_id: 'cp_a',
        name: 'A in dollars',
        open_receivable_minor: 0,
        open_payable_minor: 500,
        unlinked_bank_minor: 200,
      },
    ]);
    // An account in euros without transactions: cp_a is listed for its open euro receivable, under the name it is given.
    const eur = kept.open.filter((o) => o.currency === 'EUR');
    expect(counterpartyPage([], eur, new Map(), new Map([['cp_a', 'A in dollars']]), 50)).to.deep.equal([
      {
        counterparty_id: 'cp_a',
        name: 'A in dollars',
        open_receivable_minor: 2000,
        open_payable_minor: 0,
        unlinked_bank_minor: 0,
      },
    ]);
  });
});
