// The book reads' pure figures (docs/reference/book-reads.md "Computed
// figures"), on hand-computed books: the counterparty list of an account (its
// rows, names and order) and an account's balance and unreconciled figures.
import { expect } from 'chai';
import {
  accountFigures,
  counterpartyRows,
  entryView,
  isOpen,
  latestNames,
  nameOffAccount,
  offAccountCounterparties,
  transactionView,
  type CounterpartyEntry,
  type CounterpartyLink,
  type CounterpartyTransaction,
} from '../../shared/domain/book-reads.js';
import { invoiceLines } from '../helpers/books.js';

const SETTLEMENT = ['1400', '1600'];

const txn = (
  id: string,
  counterparty: string | null,
  amount: number,
  booking_date: string,
  name = `${counterparty} bank`,
): CounterpartyTransaction => ({
  id,
  counterparty_id: counterparty,
  amount_minor: amount,
  booking_date,
  counterparty_name: name,
});
/** A receivable (amount > 0: debit 1400) or payable (amount < 0: credit 1600) of `amount`, with its revenue or expense line. */
const entry = (
  id: string,
  counterparty: string,
  amount: number,
  status: 'posted' | 'reversed' = 'posted',
  currency = 'EUR',
): CounterpartyEntry => ({
  id,
  counterparty_id: counterparty,
  currency,
  status,
  lines: invoiceLines(amount),
});
const link = (t: string, e: string, amount: number): CounterpartyLink => ({
  bank_transaction_id: t,
  ledger_entry_id: e,
  amount_minor: amount,
});

/**
 * The account: cp_a's t1 (+5000, fully linked to e1) and t2 (+3000, 1000 linked to e2), cp_b's t3 (−2000,
 * unlinked) and t4 (+500, 800 linked: over), a transaction without counterparty. The organisation's entries:
 * cp_a e1 (5000, settled) and e2 (3000, 1000 linked); cp_b e3 (−4000 payable, unlinked); cp_c e4 (2500,
 * 500 linked from another account) and e5 (−700, unlinked): only entries name cp_c; cp_d e6 (800, settled
 * from another account); cp_e e7 (100, 300 linked: over-linked, open); cp_f e8 reversed and unlinked; cp_g
 * e9 on no settlement account (open amount 0, no link: not open).
 */
function books() {
  const transactions = [
    txn('t1', 'cp_a', 5000, '2026-02-01', 'A old'),
    txn('t2', 'cp_a', 3000, '2026-02-03', 'A new'),
    txn('t3', 'cp_b', -2000, '2026-02-03', 'B'),
    txn('t4', 'cp_b', 500, '2026-02-03', 'B'),
    txn('t5', null, 900, '2026-02-04', 'Nobody'),
  ];
  const entries = [
    entry('e1', 'cp_a', 5000),
    entry('e2', 'cp_a', 3000),
    entry('e3', 'cp_b', -4000),
    entry('e4', 'cp_c', 2500),
    entry('e5', 'cp_c', -700),
    entry('e6', 'cp_d', 800),
    entry('e7', 'cp_e', 100),
    entry('e8', 'cp_f', 600, 'reversed'),
    {
      id: 'e9',
      counterparty_id: 'cp_g',
      currency: 'EUR',
      status: 'posted' as const,
      lines: [
        { account: '4000', debit_minor: 50, credit_minor: 0 },
        { account: '1200', debit_minor: 0, credit_minor: 50 },
      ],
    },
  ];
  const links = [
    link('t1', 'e1', 5000),
    link('t2', 'e2', 1000),
    link('t4', 'e7', 300),
    link('t4', 'e2', 0),
    link('t4', 'e1', 500),
    // From transactions of another account of the organisation.
    link('x1', 'e4', 500),
    link('x2', 'e6', 800),
    link('x3', 'e1', 0),
  ];
  return { transactions, entries, links };
}

describe('book reads: counterparty figures', () => {
  it("one row per counterparty of the account's transactions or of an open posted entry, by id, with exact figures", () => {
    const b = books();
    expect(counterpartyRows(b.transactions, b.entries, b.links, SETTLEMENT, 'EUR')).to.deep.equal([
      // e2 leaves 2000 open; t2 leaves 2000 unlinked; t1 is fully linked. e1 is over-linked (5500 of 5000): open, 0 left.
      {
        counterparty_id: 'cp_a',
        name: 'A new',
        open_receivable_minor: 2000,
        open_payable_minor: 0,
        unlinked_bank_minor: 2000,
      },
      // e3 payable 4000; t3 unlinked 2000, t4 over-linked (remainder −300) adds nothing. Ties on the date: the larger id (t4) names it.
      {
        counterparty_id: 'cp_b',
        name: 'B',
        open_receivable_minor: 0,
        open_payable_minor: 4000,
        unlinked_bank_minor: 2000,
      },
      // Only entries: receivable 2500 − 500, payable 700; no transaction on the account.
      {
        counterparty_id: 'cp_c',
        name: null,
        open_receivable_minor: 2000,
        open_payable_minor: 700,
        unlinked_bank_minor: 0,
      },
      // Over-linked (300 on an open amount of 100): open by the entries list's rule, nothing left to collect.
      { counterparty_id: 'cp_e', name: null, open_receivable_minor: 0, open_payable_minor: 0, unlinked_bank_minor: 0 },
    ]);
  });

  it('a counterparty whose entries are all settled and who has no transaction on the account is not listed; reversed and non-settlement entries name nobody', () => {
    const b = books();
    const ids = counterpartyRows(b.transactions, b.entries, b.links, SETTLEMENT, 'EUR').map((r) => r.counterparty_id);
    expect(ids).to.not.include.members(['cp_d']);
    expect(ids).to.not.include('cp_f');
    expect(ids).to.not.include('cp_g');
    // The same books with cp_d's entry no longer settled: listed.
    const unsettled = counterpartyRows(
      b.transactions,
      b.entries,
      b.links.filter((l) => l.ledger_entry_id !== 'e6'),
      SETTLEMENT,
      'EUR',
    );
    expect(unsettled.find((r) => r.counterparty_id === 'cp_d')).to.deep.equal({
      counterparty_id: 'cp_d',
      name: null,
      open_receivable_minor: 800,
      open_payable_minor: 0,
      unlinked_bank_minor: 0,
    });
  });

  it("only entries in the account's currency count: another currency's open amounts are neither added nor listed", () => {
    const b = books();
    const entries = [
      ...b.entries,
      // cp_a: a USD receivable of 9000 beside its EUR ones; cp_h: only a USD payable.
      entry('u1', 'cp_a', 9000, 'posted', 'USD'),
      entry('u2', 'cp_h', -1200, 'posted', 'USD'),
    ];
    const eur = counterpartyRows(b.transactions, entries, b.links, SETTLEMENT, 'EUR');
    expect(eur).to.deep.equal(counterpartyRows(b.transactions, b.entries, b.links, SETTLEMENT, 'EUR'));
    expect(counterpartyRows([], entries, b.links, SETTLEMENT, 'USD')).to.deep.equal([
      {
        counterparty_id: 'cp_a',
        name: null,
        open_receivable_minor: 9000,
        open_payable_minor: 0,
        unlinked_bank_minor: 0,
      },
      {
        counterparty_id: 'cp_h',
        name: null,
        open_receivable_minor: 0,
        open_payable_minor: 1200,
        unlinked_bank_minor: 0,
      },
    ]);
  });

  it('a reversing entry is not open: it settles the entry it reverses, and names no counterparty', () => {
    const b = books();
    // cp_h's invoice reversed: the invoice reversed, its reversal posted with the lines swapped (open amount −600).
    const reversal = { ...entry('r1', 'cp_h', -600), reversal_of: 'e10' };
    const entries = [...b.entries, entry('e10', 'cp_h', 600, 'reversed'), reversal];
    expect(counterpartyRows(b.transactions, entries, b.links, SETTLEMENT, 'EUR')).to.deep.equal(
      counterpartyRows(b.transactions, b.entries, b.links, SETTLEMENT, 'EUR'),
    );
    // The same entry without reversal_of is an open payable.
    const { reversal_of: _, ...payable } = reversal;
    expect(
      counterpartyRows([], [payable], [], SETTLEMENT, 'EUR').map((r) => [r.counterparty_id, r.open_payable_minor]),
    ).to.deep.equal([['cp_h', 600]]);
  });

  it("without entries or links, the account's transactions alone give the rows; no books give none", () => {
    const b = books();
    expect(counterpartyRows(b.transactions, [], [], SETTLEMENT, 'EUR')).to.deep.equal([
      {
        counterparty_id: 'cp_a',
        name: 'A new',
        open_receivable_minor: 0,
        open_payable_minor: 0,
        unlinked_bank_minor: 8000,
      },
      {
        counterparty_id: 'cp_b',
        name: 'B',
        open_receivable_minor: 0,
        open_payable_minor: 0,
        unlinked_bank_minor: 2500,
      },
    ]);
    expect(counterpartyRows([], [], [], SETTLEMENT, 'EUR')).to.deep.equal([]);
  });

  it("counterparties off the account are named by their latest transaction on any account, else null; the others keep the account's name", () => {
    const b = books();
    const rows = counterpartyRows(b.transactions, b.entries, b.links, SETTLEMENT, 'EUR');
    const off = offAccountCounterparties(rows, b.transactions);
    expect(off).to.deep.equal(['cp_c', 'cp_e']);
    const elsewhere = [
      txn('x1', 'cp_c', 500, '2026-03-01', 'C first'),
      txn('x9', 'cp_c', 10, '2026-03-02', 'C latest'),
      txn('x5', 'cp_c', 10, '2026-03-02', 'C same day, smaller id'),
      // Another counterparty's transaction names only its own; cp_a's name here never replaces the account's.
      txn('x2', 'cp_d', 800, '2026-03-05', 'D'),
      txn('x3', 'cp_a', 1, '2026-12-31', 'A elsewhere'),
    ];
    expect(nameOffAccount(rows, off, elsewhere).map((r) => [r.counterparty_id, r.name])).to.deep.equal([
      ['cp_a', 'A new'],
      ['cp_b', 'B'],
      ['cp_c', 'C latest'],
      ['cp_e', null],
    ]);
  });

  it('latestNames: by booking date, then id; a transaction without counterparty names nobody, one without a name gives null', () => {
    const names = latestNames([
      txn('b', 'cp_1', 1, '2026-01-02', 'second'),
      txn('a', 'cp_1', 1, '2026-01-02', 'first'),
      txn('z', 'cp_1', 1, '2026-01-01', 'older'),
      txn('c', null, 1, '2026-05-01', 'none'),
      {
        id: 'd',
        counterparty_id: 'cp_2',
        booking_date: '2026-01-01',
        counterparty_name: undefined as unknown as string,
      },
    ]);
    expect([...names]).to.deep.equal([
      ['cp_1', 'second'],
      ['cp_2', null],
    ]);
  });

  it("isOpen is the entries list's rule: a posted entry, reversing none, with |open amount| ≠ Σ links", () => {
    const posted = { status: 'posted' as const, reversal_of: null };
    expect([
      isOpen(posted, 3000, 1000),
      isOpen(posted, -4000, 4000),
      isOpen(posted, 100, 300),
      isOpen(posted, 0, 0),
      isOpen(posted, 0, 5),
    ]).to.deep.equal([true, false, true, false, true]);
  });

  it('a reversed entry and its reversing entry are not open, whatever their links leave', () => {
    expect([
      isOpen({ status: 'reversed', reversal_of: null }, 3000, 0),
      isOpen({ status: 'posted', reversal_of: 'le_1' }, -3000, 0),
      isOpen({ status: 'posted' }, 3000, 0),
    ]).to.deep.equal([false, false, true]);
  });
});

describe('book reads: account figures', () => {
  it('book balance = opening + Σ every transaction; unreconciled = count and Σ of the unreconciled ones', () => {
    expect(
      accountFigures(10_000, [
        { amount_minor: 5000, status: 'unreconciled' },
        { amount_minor: -2000, status: 'unreconciled' },
        { amount_minor: 1000, status: 'reconciled' },
      ]),
    ).to.deep.equal({ book_balance_minor: 14_000, unreconciled: { count: 2, sum_minor: 3000 } });
    expect(accountFigures(-50, [])).to.deep.equal({
      book_balance_minor: -50,
      unreconciled: { count: 0, sum_minor: 0 },
    });
  });
});

describe('book reads: views', () => {
  it("an imported record's provenance is left out of the entry and transaction views", () => {
    const provenance = { operation: 'op_1', approved_by: ['bob'] };
    const e = entryView(
      {
        id: 'le_1',
        entry_date: '2026-03-01',
        description: 'd',
        reference: 'r',
        counterparty_id: 'cp_a',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 100, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 100 },
        ],
        status: 'posted',
        reversal_of: null,
        reversed_by: null,
        version: 1,
        provenance,
      },
      [],
      SETTLEMENT,
    );
    expect(e).to.not.have.property('provenance');
    expect(e).to.include({ id: 'le_1', open_amount_minor: 100, linked_minor: 0 });
    const t = transactionView(
      {
        id: 'bt_1',
        bank_account_id: 'ba_1',
        booking_date: '2026-03-02',
        amount_minor: 100,
        currency: 'EUR',
        counterparty_id: 'cp_a',
        counterparty_name: 'A',
        remittance_info: '',
        status: 'unreconciled',
        reconciliation_id: null,
        version: 1,
        provenance,
      },
      [],
    );
    expect(t).to.not.have.property('provenance');
    expect(t).to.include({ id: 'bt_1', remainder_minor: 100, link_state: 'unlinked' });
  });
});
