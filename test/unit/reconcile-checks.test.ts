import { expect } from 'chai';
import type { BankAccount, BankLink, BankTransaction, Org } from '../../shared/domain/books.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import {
  decideReconciliation,
  lockedReconciliation,
  type ReconciliationBooks,
  type ReconciliationDecision,
  type ReconciliationPlan,
  type ReconciliationRequest,
} from '../../shared/kinds/bank-reconcile/plan.js';
import { ERROR_TABLE, type ErrorCode } from '../../shared/errors.js';
import * as records from '../helpers/records.js';

// ---- builders ---------------------------------------------------------------

const org = (): Org => records.org({ id: 'org_acme', name: 'Acme', version: 3 });

const account = (over: Partial<BankAccount> = {}): BankAccount =>
  records.account({ name: 'Main account', opening_balance_minor: 100_000, version: 4, ...over });

const txn = (
  id: string,
  booking_date: string,
  amount_minor: number,
  over: Partial<BankTransaction> = {},
): BankTransaction => records.txn({ id, booking_date, amount_minor, ...over });

const link = (
  id: string,
  bank_transaction_id: string,
  ledger_entry_id: string,
  amount_minor: number,
  version = 1,
): BankLink =>
  records.link({
    id,
    bank_transaction_id,
    ledger_entry_id,
    amount_minor,
    created_at: '2026-01-31T12:00:00.000Z',
    version,
  });

interface Case {
  books: ReconciliationBooks;
  request: ReconciliationRequest;
}

/**
 * A January statement that passes every check. Ids are chosen so that id
 * order differs from booking order: by (booking_date, id) the transactions
 * are bt_b, bt_c, bt_d, bt_a.
 *   opening 100 000 + (50 000 − 1 250 + 7 500 − 20 000) = 136 250
 */
function validCase(): Case {
  const transactions = [
    txn('bt_a', '2026-01-20', -20_000, { version: 2 }),
    txn('bt_b', '2026-01-05', 50_000),
    txn('bt_c', '2026-01-10', -1_250),
    txn('bt_d', '2026-01-10', 7_500),
  ];
  const links = [
    link('lnk_9', 'bt_a', 'le_bill2', 5_000),
    link('lnk_2', 'bt_a', 'le_bill1', 15_000, 5),
    link('lnk_5', 'bt_b', 'le_inv1', 50_000),
    link('lnk_7', 'bt_c', 'le_fee', 1_250),
    link('lnk_3', 'bt_d', 'le_inv2', 7_500),
  ];
  return {
    books: {
      org: org(),
      account: account(),
      transactions,
      links,
      unreconciled_up_to_end: transactions.map((t) => ({ id: t.id, booking_date: t.booking_date })),
      pending: [],
    },
    request: {
      bank_account_id: 'ba_main',
      statement: { end_date: '2026-01-31', closing_balance_minor: 136_250, currency: 'EUR', reference: 'ST-2026-01' },
      transaction_ids: ['bt_a', 'bt_b', 'bt_c', 'bt_d'],
      note: 'January statement',
    },
  };
}

const theValidPlan = (): ReconciliationPlan => ({
  bank_account_id: 'ba_main',
  statement: { end_date: '2026-01-31', closing_balance_minor: 136_250, currency: 'EUR', reference: 'ST-2026-01' },
  opening_balance_minor: 100_000,
  cleared_total_minor: 36_250,
  closing_balance_minor: 136_250,
  transactions: [
    {
      bank_transaction_id: 'bt_b',
      booking_date: '2026-01-05',
      amount_minor: 50_000,
      links: [{ link_id: 'lnk_5', ledger_entry_id: 'le_inv1', amount_minor: 50_000 }],
    },
    {
      bank_transaction_id: 'bt_c',
      booking_date: '2026-01-10',
      amount_minor: -1_250,
      links: [{ link_id: 'lnk_7', ledger_entry_id: 'le_fee', amount_minor: 1_250 }],
    },
    {
      bank_transaction_id: 'bt_d',
      booking_date: '2026-01-10',
      amount_minor: 7_500,
      links: [{ link_id: 'lnk_3', ledger_entry_id: 'le_inv2', amount_minor: 7_500 }],
    },
    {
      bank_transaction_id: 'bt_a',
      booking_date: '2026-01-20',
      amount_minor: -20_000,
      links: [
        { link_id: 'lnk_2', ledger_entry_id: 'le_bill1', amount_minor: 15_000 },
        { link_id: 'lnk_9', ledger_entry_id: 'le_bill2', amount_minor: 5_000 },
      ],
    },
  ],
  left_out: { count: 0, first_ids: [] },
});

const transactionOf = (c: Case, id: string): BankTransaction => {
  const t = c.books.transactions.find((x) => x.id === id);
  if (!t) throw new Error(`no transaction ${id} in the case`);
  return t;
};

// ---- assertions -------------------------------------------------------------

function expectError(result: ReconciliationDecision, code: ErrorCode, details: Record<string, unknown>): void {
  if (result.outcome !== 'refused') throw new Error(`expected ${code}, got outcome ${result.outcome}`);
  expect(result.code).to.equal(code);
  expect(result.details).to.deep.equal(details);
}

function expectStaged(result: ReconciliationDecision): ReconciliationDecision & { outcome: 'staged' } {
  if (result.outcome === 'refused')
    throw new Error(`expected a staged plan, got ${result.code}: ${JSON.stringify(result.details)}`);
  if (result.outcome !== 'staged') throw new Error(`expected a staged plan, got ${result.outcome}`);
  return result;
}

const decide = (c: Case): ReconciliationDecision => decideReconciliation(c.books, c.request);

// ---- each check alone -------------------------------------------------------

describe('decideReconciliation: each check', () => {
  it('answers not_found (404) when the bank account does not exist in the organisation', () => {
    const c = validCase();
    c.books.account = null;
    const result = decide(c);
    expectError(result, 'not_found', { resource: 'Bank account', id: 'ba_main' });
    expect(result.outcome === 'refused' ? ERROR_TABLE[result.code].status : 0).to.equal(404);
  });

  it('answers currency_mismatch when the statement currency is not the account currency', () => {
    const c = validCase();
    c.request.statement.currency = 'USD';
    expectError(decide(c), 'currency_mismatch', { account_currency: 'EUR', statement_currency: 'USD' });
  });

  it('answers statement_before_last_reconciliation when end_date is before reconciled_through.date', () => {
    const c = validCase();
    c.books.account = account({ reconciled_through: { date: '2026-02-01', balance_minor: 100_000 } });
    expectError(decide(c), 'statement_before_last_reconciliation', {
      end_date: '2026-01-31',
      reconciled_through_date: '2026-02-01',
    });
  });

  it('answers period_locked when end_date is on or before the lock date', () => {
    const c = validCase();
    c.books.org = records.org({ id: 'org_acme', lock_date: '2026-01-31', version: 3 });
    const result = decide(c);
    expectError(result, 'period_locked', { end_date: '2026-01-31', lock_date: '2026-01-31' });
    expect(result.outcome === 'refused' ? ERROR_TABLE[result.code].status : 0).to.equal(422);
  });

  it('answers unknown_transactions, ids sorted, for ids that are missing or belong to another account', () => {
    const c = validCase();
    c.books.transactions.push(txn('bt_other', '2026-01-07', 300, { bank_account_id: 'ba_savings' }));
    c.request.transaction_ids = ['bt_zz', 'bt_a', 'bt_b', 'bt_c', 'bt_d', 'bt_other'];
    expectError(decide(c), 'unknown_transactions', { transaction_ids: ['bt_other', 'bt_zz'] });
  });

  it('answers already_reconciled (409), ids sorted, for transactions reconciled before', () => {
    const c = validCase();
    Object.assign(transactionOf(c, 'bt_d'), { status: 'reconciled', reconciliation_id: 'stg_old' });
    Object.assign(transactionOf(c, 'bt_a'), { status: 'reconciled', reconciliation_id: 'stg_old' });
    const result = decide(c);
    expectError(result, 'already_reconciled', { transaction_ids: ['bt_a', 'bt_d'] });
    expect(result.outcome === 'refused' ? ERROR_TABLE[result.code].status : 0).to.equal(409);
  });

  it('answers transaction_after_statement_end, ids sorted, for transactions booked after end_date', () => {
    const c = validCase();
    transactionOf(c, 'bt_d').booking_date = '2026-02-03';
    transactionOf(c, 'bt_a').booking_date = '2026-02-01';
    expectError(decide(c), 'transaction_after_statement_end', { transaction_ids: ['bt_a', 'bt_d'] });
  });

  it('answers unmatched_transactions with each remainder |amount| − Σ links, sorted by id, over-linking negative', () => {
    const c = validCase();
    c.books.links = c.books.links.filter((l) => l.id !== 'lnk_3' && l.id !== 'lnk_9'); // bt_d unlinked, bt_a short by 5 000
    c.books.links.push(link('lnk_8', 'bt_b', 'le_inv3', 100)); // bt_b over-linked by 100
    expectError(decide(c), 'unmatched_transactions', {
      transactions: [
        { bank_transaction_id: 'bt_a', remainder_minor: 5_000 },
        { bank_transaction_id: 'bt_b', remainder_minor: -100 },
        { bank_transaction_id: 'bt_d', remainder_minor: 7_500 },
      ],
    });
  });

  it('answers out_of_balance with expected_closing_minor and difference_minor = closing − (opening + Σ amounts)', () => {
    const c = validCase();
    c.request.statement.closing_balance_minor = 136_000;
    expectError(decide(c), 'out_of_balance', { expected_closing_minor: 136_250, difference_minor: -250 });
  });
});

// ---- the order of the checks ------------------------------------------------

/** One way to break each check, applied to a fresh valid case. */
const breaks = {
  not_found: (c: Case) => {
    c.books.account = null;
  },
  currency_mismatch: (c: Case) => {
    c.request.statement.currency = 'USD';
  },
  statement_before_last_reconciliation: (c: Case) => {
    c.books.account = account({ reconciled_through: { date: '2026-02-01', balance_minor: 100_000 } });
  },
  period_locked: (c: Case) => {
    c.books.org = records.org({ id: 'org_acme', lock_date: '2026-02-15', version: 3 });
  },
  unknown_transactions: (c: Case) => {
    c.request.transaction_ids = [...c.request.transaction_ids, 'bt_zz'];
  },
  already_reconciled: (c: Case) => {
    Object.assign(transactionOf(c, 'bt_d'), { status: 'reconciled', reconciliation_id: 'stg_old' });
  },
  transaction_after_statement_end: (c: Case) => {
    transactionOf(c, 'bt_a').booking_date = '2026-02-01';
  },
  pending_operation: (c: Case) => {
    c.books.pending = [
      { staged_operation_id: 'stg_other', subject_key: 'reconcile:ba_main', plan_hash: 'f'.repeat(64) },
    ];
  },
  unmatched_transactions: (c: Case) => {
    c.books.links = c.books.links.filter((l) => l.id !== 'lnk_3');
  },
  out_of_balance: (c: Case) => {
    c.request.statement.closing_balance_minor = 136_000;
  },
} satisfies Partial<Record<ErrorCode, (c: Case) => void>>;

type Broken = keyof typeof breaks;

describe('decideReconciliation: the order of the checks', () => {
  // Adjacent pairs in the contractual order, pending conflicts in their place
  // (after the permanent facts, before links and balance). The later failure
  // alone is covered above; together the earlier one is answered.
  const pairs: Array<[Broken, Broken]> = [
    ['not_found', 'currency_mismatch'],
    ['currency_mismatch', 'statement_before_last_reconciliation'],
    ['statement_before_last_reconciliation', 'period_locked'],
    ['period_locked', 'unknown_transactions'],
    ['period_locked', 'pending_operation'],
    ['unknown_transactions', 'already_reconciled'],
    ['already_reconciled', 'transaction_after_statement_end'],
    ['transaction_after_statement_end', 'pending_operation'],
    ['transaction_after_statement_end', 'unmatched_transactions'],
    ['pending_operation', 'unmatched_transactions'],
    ['pending_operation', 'out_of_balance'],
    ['unmatched_transactions', 'out_of_balance'],
  ];

  for (const [first, second] of pairs) {
    it(`reports ${first} before ${second}`, () => {
      const alone = validCase();
      breaks[second](alone);
      const aloneResult = decide(alone);
      expect(aloneResult.outcome === 'refused' ? aloneResult.code : 'ok', `${second} alone`).to.equal(second);

      const both = validCase();
      breaks[second](both);
      breaks[first](both);
      const result = decide(both);
      expect(result.outcome === 'refused' ? result.code : 'ok').to.equal(first);
    });
  }
});

// ---- transaction currencies and exact sums ----------

describe('decideReconciliation: transaction currencies', () => {
  it('answers currency_mismatch naming, sorted, every requested transaction in another currency than the account', () => {
    const c = validCase();
    transactionOf(c, 'bt_d').currency = 'USD';
    transactionOf(c, 'bt_a').currency = 'GBP';
    expectError(decide(c), 'currency_mismatch', { account_currency: 'EUR', transaction_ids: ['bt_a', 'bt_d'] });
  });

  it('checks transaction currencies after unknown_transactions and before already_reconciled', () => {
    const unknown = validCase();
    transactionOf(unknown, 'bt_d').currency = 'USD';
    unknown.request.transaction_ids.push('bt_missing');
    expect(refusedCode(decide(unknown))).to.equal('unknown_transactions');
    const reconciled = validCase();
    transactionOf(reconciled, 'bt_d').currency = 'USD';
    transactionOf(reconciled, 'bt_b').status = 'reconciled';
    expect(refusedCode(decide(reconciled))).to.equal('currency_mismatch');
  });
});

describe('decideReconciliation: exact sums of amounts near 2^53', () => {
  const MAX = Number.MAX_SAFE_INTEGER; // 2^53 − 1
  /** Opening 0; MAX + 2 − MAX = 2, whose floating-point sum in id order (MAX + 2 rounds to 2^53) would be 1. */
  function bigCase(closing: number): Case {
    const transactions = [
      txn('bt_1', '2026-01-05', MAX),
      txn('bt_2', '2026-01-06', 2),
      txn('bt_3', '2026-01-07', -MAX),
    ];
    const links = [
      link('lnk_1', 'bt_1', 'le_1', MAX),
      link('lnk_2', 'bt_2', 'le_2', 2),
      link('lnk_3', 'bt_3', 'le_3', MAX),
    ];
    return {
      books: {
        org: org(),
        account: account({ opening_balance_minor: 0 }),
        transactions,
        links,
        unreconciled_up_to_end: [],
        pending: [],
      },
      request: {
        bank_account_id: 'ba_main',
        statement: { end_date: '2026-01-31', closing_balance_minor: closing, currency: 'EUR' },
        transaction_ids: ['bt_1', 'bt_2', 'bt_3'],
      },
    };
  }

  it('stages the correct statement: closing 2, cleared total 2', () => {
    const staged = expectStaged(decide(bigCase(2)));
    expect(staged.plan.cleared_total_minor).to.equal(2);
    expect(staged.plan.closing_balance_minor).to.equal(2);
  });

  it('refuses a statement off by one (closing 1) as out_of_balance by exactly 1', () => {
    expectError(decide(bigCase(1)), 'out_of_balance', { expected_closing_minor: 2, difference_minor: -1 });
  });

  it('reports an over-linking past 2^53 exactly: links MAX and 2 on a transaction of MAX leave −2, not −1', () => {
    const c = bigCase(2);
    c.books.links.push(link('lnk_1b', 'bt_1', 'le_1', 2));
    expectError(decide(c), 'unmatched_transactions', {
      transactions: [{ bank_transaction_id: 'bt_1', remainder_minor: -2 }],
    });
  });

  it('answers amounts past the safe range exactly, as decimal strings', () => {
    const c = bigCase(0);
    c.books.account = account({ opening_balance_minor: MAX });
    c.books.transactions = [txn('bt_1', '2026-01-05', MAX)];
    c.books.links = [link('lnk_1', 'bt_1', 'le_1', MAX)];
    c.request.transaction_ids = ['bt_1'];
    c.request.statement.closing_balance_minor = -MAX;
    // Expected closing 2·MAX = 18014398509481982; the difference −3·MAX = −27021597764222973.
    expectError(decide(c), 'out_of_balance', {
      expected_closing_minor: '18014398509481982',
      difference_minor: '-27021597764222973',
    });
  });

  it('refuses a balanced statement whose cleared total is beyond the safe range: amount_out_of_range, never a rounded plan', () => {
    const c = bigCase(MAX);
    c.books.account = account({ opening_balance_minor: -MAX });
    c.books.transactions = [txn('bt_1', '2026-01-05', MAX), txn('bt_2', '2026-01-06', MAX)];
    c.books.links = [link('lnk_1', 'bt_1', 'le_1', MAX), link('lnk_2', 'bt_2', 'le_2', MAX)];
    c.request.transaction_ids = ['bt_1', 'bt_2'];
    expectError(decide(c), 'amount_out_of_range', {
      field: 'cleared_total_minor',
      value_minor: '18014398509481982',
      max_minor: MAX,
    });
  });
});

const refusedCode = (r: ReconciliationDecision): string => (r.outcome === 'refused' ? r.code : r.outcome);

// ---- the staged plan ----------------------------------------------------------

describe('decideReconciliation: the staged plan', () => {
  it('stages a statement of inflows and outflows: transactions by (booking_date, id), links by id, cleared total and closing', () => {
    const decision = expectStaged(decide(validCase()));
    expect(decision.plan).to.deep.equal(theValidPlan());
    expect(decision.plan_hash).to.equal(planHash(theValidPlan()));
    expect(decision.plan_hash).to.match(/^[0-9a-f]{64}$/);
    expect(decision.warnings).to.deep.equal([]);
  });

  it('locks the account scope and every transaction of the plan, sorted, and no entries', () => {
    const decision = expectStaged(decide(validCase()));
    expect(decision.locks).to.deep.equal({
      subject_key: 'reconcile:ba_main',
      entry_ids: [],
      transaction_ids: ['bt_a', 'bt_b', 'bt_c', 'bt_d'],
    });
  });

  it('records the version of the org, the account, every transaction and every link as preconditions', () => {
    const decision = expectStaged(decide(validCase()));
    expect(decision.preconditions).to.deep.equal([
      { collection: 'orgs', id: 'org_acme', version: 3 },
      { collection: 'bank_accounts', id: 'ba_main', version: 4 },
      { collection: 'bank_transactions', id: 'bt_b', version: 1 },
      { collection: 'bank_transactions', id: 'bt_c', version: 1 },
      { collection: 'bank_transactions', id: 'bt_d', version: 1 },
      { collection: 'bank_transactions', id: 'bt_a', version: 2 },
      { collection: 'bank_links', id: 'lnk_5', version: 1 },
      { collection: 'bank_links', id: 'lnk_7', version: 1 },
      { collection: 'bank_links', id: 'lnk_3', version: 1 },
      { collection: 'bank_links', id: 'lnk_2', version: 5 },
      { collection: 'bank_links', id: 'lnk_9', version: 1 },
    ]);
  });

  it('writes a missing statement reference as null, whether absent or null', () => {
    const absent = validCase();
    delete absent.request.statement.reference;
    const nulled = validCase();
    nulled.request.statement.reference = null;
    const expected = { end_date: '2026-01-31', closing_balance_minor: 136_250, currency: 'EUR', reference: null };
    expect(expectStaged(decide(absent)).plan.statement).to.deep.equal(expected);
    expect(expectStaged(decide(nulled)).plan.statement).to.deep.equal(expected);
  });

  it('keeps the note out of the plan: another note gives the same plan and hash', () => {
    const a = validCase();
    const b = validCase();
    b.request.note = 'Corrected note';
    const c = validCase();
    delete c.request.note;
    const [da, db, dc] = [expectStaged(decide(a)), expectStaged(decide(b)), expectStaged(decide(c))];
    expect(da.plan).to.not.have.property('note');
    expect([db.plan_hash, dc.plan_hash]).to.deep.equal([da.plan_hash, da.plan_hash]);
  });

  it('opens a first reconciliation with the account opening_balance_minor', () => {
    const c = validCase();
    c.books.account = account({ reconciled_through: null, opening_balance_minor: 40_000 });
    c.request.statement.closing_balance_minor = 76_250;
    const plan = expectStaged(decide(c)).plan;
    expect([plan.opening_balance_minor, plan.cleared_total_minor, plan.closing_balance_minor]).to.deep.equal([
      40_000, 36_250, 76_250,
    ]);
  });

  it('opens a later reconciliation with reconciled_through.balance_minor, not opening_balance_minor', () => {
    const c = validCase();
    c.books.account = account({
      reconciled_through: { date: '2025-12-31', balance_minor: 80_000 },
      opening_balance_minor: 100_000,
    });
    c.request.statement.closing_balance_minor = 116_250;
    const plan = expectStaged(decide(c)).plan;
    expect([plan.opening_balance_minor, plan.cleared_total_minor, plan.closing_balance_minor]).to.deep.equal([
      80_000, 36_250, 116_250,
    ]);

    c.request.statement.closing_balance_minor = 136_250; // what opening_balance_minor would give
    expectError(decide(c), 'out_of_balance', { expected_closing_minor: 116_250, difference_minor: 20_000 });
  });

  it('allows a statement ending on the reconciled_through date itself', () => {
    const c = validCase();
    c.books.account = account({ reconciled_through: { date: '2026-01-31', balance_minor: 100_000 } });
    expect(expectStaged(decide(c)).plan.statement.end_date).to.equal('2026-01-31');
  });

  it('allows transactions booked in the closed period when the statement ends the day after the lock date', () => {
    const c = validCase();
    // Every transaction (2026-01-05 to 2026-01-20) is on or before the lock date: reconciling them is a status change.
    c.books.org = records.org({ id: 'org_acme', lock_date: '2026-01-30', version: 3 });
    const staged = expectStaged(decide(c));
    expect(staged.plan).to.deep.equal(theValidPlan());
  });

  it('allows a transaction booked on end_date itself', () => {
    const c = validCase();
    transactionOf(c, 'bt_a').booking_date = '2026-01-31';
    const plan = expectStaged(decide(c)).plan;
    expect(plan.transactions.map((t) => [t.bank_transaction_id, t.booking_date])).to.deep.equal([
      ['bt_b', '2026-01-05'],
      ['bt_c', '2026-01-10'],
      ['bt_d', '2026-01-10'],
      ['bt_a', '2026-01-31'],
    ]);
  });

  it('counts a repeated transaction id once', () => {
    const c = validCase();
    c.request.transaction_ids = ['bt_b', 'bt_a', 'bt_b', 'bt_c', 'bt_d', 'bt_a'];
    const decision = expectStaged(decide(c));
    expect(decision.plan).to.deep.equal(theValidPlan());
    expect(decision.locks.transaction_ids).to.deep.equal(['bt_a', 'bt_b', 'bt_c', 'bt_d']);
  });

  it('gives the same plan, hash, locks and preconditions for the same books in any order', () => {
    const shuffled = validCase();
    shuffled.books.transactions = [
      shuffled.books.transactions[2]!,
      shuffled.books.transactions[0]!,
      shuffled.books.transactions[3]!,
      shuffled.books.transactions[1]!,
    ];
    shuffled.books.links.reverse();
    shuffled.books.unreconciled_up_to_end.reverse();
    shuffled.request.transaction_ids = ['bt_d', 'bt_b', 'bt_a', 'bt_c'];
    const a = expectStaged(decide(validCase()));
    const b = expectStaged(decide(shuffled));
    expect(b.plan).to.deep.equal(a.plan);
    expect(b.plan_hash).to.equal(a.plan_hash);
    expect(b.locks).to.deep.equal(a.locks);
    expect(b.preconditions).to.deep.equal(a.preconditions);
  });
});

// ---- left-out transactions ----------------------------------------------------

describe('decideReconciliation: unreconciled transactions the statement leaves out', () => {
  /** 12 left-out transactions; by (booking_date, id): lo_k, lo_b, lo_c, lo_a, lo_l, lo_d, lo_e, lo_f, lo_j, lo_g | lo_h, lo_i */
  const leftOutRows = [
    { id: 'lo_a', booking_date: '2026-01-04' },
    { id: 'lo_b', booking_date: '2026-01-02' },
    { id: 'lo_c', booking_date: '2026-01-02' },
    { id: 'lo_d', booking_date: '2026-01-11' },
    { id: 'lo_e', booking_date: '2026-01-12' },
    { id: 'lo_f', booking_date: '2026-01-12' },
    { id: 'lo_g', booking_date: '2026-01-25' },
    { id: 'lo_h', booking_date: '2026-01-30' },
    { id: 'lo_i', booking_date: '2026-01-31' },
    { id: 'lo_j', booking_date: '2026-01-20' },
    { id: 'lo_k', booking_date: '2026-01-01' },
    { id: 'lo_l', booking_date: '2026-01-04' },
  ];

  it('reports the count and the first 10 ids by (booking_date, id), in the plan and as a warning', () => {
    const c = validCase();
    c.books.unreconciled_up_to_end = [
      ...leftOutRows.slice(6),
      ...c.books.unreconciled_up_to_end,
      ...leftOutRows.slice(0, 6),
    ];
    const decision = expectStaged(decide(c));
    const first_ids = ['lo_k', 'lo_b', 'lo_c', 'lo_a', 'lo_l', 'lo_d', 'lo_e', 'lo_f', 'lo_j', 'lo_g'];
    expect(decision.plan.left_out).to.deep.equal({ count: 12, first_ids });
    expect(decision.warnings).to.deep.equal([
      {
        code: 'left_out_unreconciled',
        message:
          '12 unreconciled transactions of bank account ba_main booked on or before 2026-01-31 are not in this statement.',
        details: { count: 12, first_ids },
      },
    ]);
    expect(decision.plan_hash).to.equal(planHash({ ...theValidPlan(), left_out: { count: 12, first_ids } }));
  });

  it('names a single left-out transaction in the singular', () => {
    const c = validCase();
    c.books.unreconciled_up_to_end.push({ id: 'lo_a', booking_date: '2026-01-04' });
    expect(expectStaged(decide(c)).warnings).to.deep.equal([
      {
        code: 'left_out_unreconciled',
        message:
          '1 unreconciled transaction of bank account ba_main booked on or before 2026-01-31 is not in this statement.',
        details: { count: 1, first_ids: ['lo_a'] },
      },
    ]);
  });

  it('does not count the statement’s own transactions, repeats, or any booked after end_date', () => {
    const c = validCase();
    c.books.unreconciled_up_to_end.push(
      { id: 'lo_a', booking_date: '2026-01-04' },
      { id: 'lo_a', booking_date: '2026-01-04' },
      { id: 'lo_late', booking_date: '2026-02-01' },
    );
    expect(expectStaged(decide(c)).plan.left_out).to.deep.equal({ count: 1, first_ids: ['lo_a'] });
  });
});

// ---- pending operations ---------------------------------------------------------

describe('decideReconciliation: pending operations', () => {
  it('returns the pending operation as existing when it holds the very same plan for the same account', () => {
    const { plan_hash } = expectStaged(decide(validCase()));
    const c = validCase();
    c.books.pending = [{ staged_operation_id: 'stg_1', subject_key: 'reconcile:ba_main', plan_hash }];
    const result = decide(c);
    expect(result).to.deep.equal({ outcome: 'existing', staged_operation_id: 'stg_1' });
  });

  it('answers pending_operation (409, retryable) with the holders sorted when the pending plans differ', () => {
    const c = validCase();
    c.books.pending = [
      { staged_operation_id: 'stg_repair', subject_key: 'repair:ba_main:cp_1', plan_hash: 'a'.repeat(64) },
      { staged_operation_id: 'stg_old_recon', subject_key: 'reconcile:ba_main', plan_hash: 'b'.repeat(64) },
      { staged_operation_id: 'stg_repair', subject_key: 'repair:ba_main:cp_1', plan_hash: 'a'.repeat(64) },
    ];
    const result = decide(c);
    expectError(result, 'pending_operation', { staged_operation_ids: ['stg_old_recon', 'stg_repair'] });
    expect(
      result.outcome === 'refused' ? [ERROR_TABLE[result.code].status, ERROR_TABLE[result.code].retryable] : [],
    ).to.deep.equal([409, true]);
  });

  it('answers pending_operation when the same plan is pending but another operation also holds part of it', () => {
    const { plan_hash } = expectStaged(decide(validCase()));
    const c = validCase();
    c.books.pending = [
      { staged_operation_id: 'stg_1', subject_key: 'reconcile:ba_main', plan_hash },
      { staged_operation_id: 'stg_0', subject_key: 'reverse:le_inv1', plan_hash: 'c'.repeat(64) },
    ];
    expectError(decide(c), 'pending_operation', { staged_operation_ids: ['stg_0', 'stg_1'] });
  });

  it('answers pending_operation, not existing, when the pending plan was for another statement', () => {
    const { plan_hash } = expectStaged(decide(validCase()));
    const c = validCase();
    c.request.statement.reference = 'ST-2026-01-corrected';
    c.books.pending = [{ staged_operation_id: 'stg_1', subject_key: 'reconcile:ba_main', plan_hash }];
    expectError(decide(c), 'pending_operation', { staged_operation_ids: ['stg_1'] });
  });
});

describe('lockedReconciliation: the lock date at apply', () => {
  const plan = { bank_account_id: 'ba_main', statement: theValidPlan().statement };

  it('names the account, the statement end and the lock date once the lock date reaches the statement end', () => {
    expect(lockedReconciliation(plan, '2026-01-31')).to.deep.equal({
      reason: 'period_locked',
      lock_date: '2026-01-31',
      bank_account_id: 'ba_main',
      end_date: '2026-01-31',
    });
    expect(lockedReconciliation(plan, '2026-03-31')).to.deep.equal({
      reason: 'period_locked',
      lock_date: '2026-03-31',
      bank_account_id: 'ba_main',
      end_date: '2026-01-31',
    });
  });

  it('is null while the statement ends after the lock date, or without a lock date', () => {
    expect(lockedReconciliation(plan, '2026-01-30')).to.equal(null);
    expect(lockedReconciliation(plan, null)).to.equal(null);
  });
});
