import { expect } from 'chai';
import type { BankLink, BankTransaction, LedgerEntry, Org } from '../../shared/domain/books.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import { decideReversal, lockedReversal, type ReversalBooks } from '../../shared/kinds/ledger-reversal/plan.js';
import * as records from '../helpers/records.js';

const org: Org = records.org({ lock_date: '2026-01-31', version: 3 });

const entry = (fields: Partial<LedgerEntry> = {}): LedgerEntry =>
  records.entry({
    entry_date: '2026-02-03',
    description: 'Invoice 1',
    reference: 'INV-1',
    lines: [
      { account: '1400', debit_minor: 11_900, credit_minor: 0 },
      { account: '8400', debit_minor: 0, credit_minor: 10_000 },
      { account: '3806', debit_minor: 0, credit_minor: 1_900 },
    ],
    version: 2,
    ...fields,
  });
const txn = (id: string, status: BankTransaction['status'] = 'unreconciled'): BankTransaction =>
  records.txn({
    id,
    bank_account_id: 'ba_1',
    booking_date: '2026-02-10',
    amount_minor: 11_900,
    counterparty_name: 'C',
    status,
    reconciliation_id: status === 'reconciled' ? 'rec_1' : null,
  });
const link = (id: string, txnId: string, amount: number): BankLink =>
  records.link({
    id,
    bank_transaction_id: txnId,
    amount_minor: amount,
    created_at: '2026-02-10T00:00:00Z',
    created_by: 'bob',
  });

const books = (fields: Partial<ReversalBooks> = {}): ReversalBooks => ({
  org,
  entry: entry(),
  links: [],
  transactions: [],
  pending: [],
  ...fields,
});
const request = { entry_id: 'le_1', reversal_date: '2026-03-01', reason: 'wrong customer' };

describe('ledger reversal decision', () => {
  it('swaps debit and credit on every line and unlinks every bank link, ordered by link id', () => {
    const result = decideReversal(
      books({
        links: [link('lnk_b', 'bt_2', 6_900), link('lnk_a', 'bt_1', 5_000)],
        transactions: [txn('bt_1'), txn('bt_2')],
      }),
      request,
    );
    expect(result.outcome).to.equal('staged');
    if (result.outcome !== 'staged') throw new Error('expected staged');
    const expected = {
      ledger_entry_id: 'le_1',
      reversal_date: '2026-03-01',
      reason: 'wrong customer',
      reversing_entry: {
        entry_date: '2026-03-01',
        description: 'Reversal of le_1',
        reference: 'INV-1',
        counterparty_id: 'cp_1',
        currency: 'EUR',
        lines: [
          { account: '1400', debit_minor: 0, credit_minor: 11_900 },
          { account: '8400', debit_minor: 10_000, credit_minor: 0 },
          { account: '3806', debit_minor: 1_900, credit_minor: 0 },
        ],
        reversal_of: 'le_1',
      },
      actions: [
        { kind: 'unlink', bank_transaction_id: 'bt_1', link_id: 'lnk_a', ledger_entry_id: 'le_1', amount_minor: 5_000 },
        { kind: 'unlink', bank_transaction_id: 'bt_2', link_id: 'lnk_b', ledger_entry_id: 'le_1', amount_minor: 6_900 },
      ],
    };
    expect(result.plan).to.deep.equal(expected);
    expect(result.plan_hash).to.equal(planHash(expected));
    expect(result.locks).to.deep.equal({
      subject_key: 'reverse:le_1',
      entry_ids: ['le_1'],
      transaction_ids: ['bt_1', 'bt_2'],
    });
    expect(result.preconditions).to.deep.equal([
      { collection: 'orgs', id: 'org_1', version: 3 },
      { collection: 'ledger_entries', id: 'le_1', version: 2 },
      { collection: 'bank_links', id: 'lnk_a', version: 1 },
      { collection: 'bank_links', id: 'lnk_b', version: 1 },
      { collection: 'bank_transactions', id: 'bt_1', version: 1 },
      { collection: 'bank_transactions', id: 'bt_2', version: 1 },
    ]);
  });

  it('gives the same plan and hash whatever order the links arrive in', () => {
    const a = decideReversal(
      books({
        links: [link('lnk_a', 'bt_1', 5_000), link('lnk_b', 'bt_2', 6_900)],
        transactions: [txn('bt_1'), txn('bt_2')],
      }),
      request,
    );
    const b = decideReversal(
      books({
        links: [link('lnk_b', 'bt_2', 6_900), link('lnk_a', 'bt_1', 5_000)],
        transactions: [txn('bt_2'), txn('bt_1')],
      }),
      request,
    );
    expect(a).to.deep.equal(b);
  });

  it('plans a reversal with no actions for an entry without bank links, reason null when absent', () => {
    const result = decideReversal(books(), { ...request, reason: null });
    if (result.outcome !== 'staged') throw new Error('expected staged');
    expect(result.plan.actions).to.deep.equal([]);
    expect(result.plan.reason).to.equal(null);
  });

  it('checks in the contract order: not_found, already_reversed, pending_operation, reversal_before_entry, period_locked, reconciled_links', () => {
    const code = (b: ReversalBooks, r = request): string => {
      const result = decideReversal(b, r);
      return result.outcome === 'refused' ? result.code : result.outcome;
    };
    const reconciled = { links: [link('lnk_a', 'bt_1', 11_900)], transactions: [txn('bt_1', 'reconciled')] };
    const pending = [{ staged_operation_id: 'stg_9', subject_key: 'reverse:le_1', plan_hash: 'x' }];
    const early = { ...request, reversal_date: '2026-01-01' };
    expect(code(books({ entry: null, pending }))).to.equal('not_found');
    expect(code(books({ entry: entry({ status: 'reversed', reversed_by: 'le_9' }), pending }))).to.equal(
      'already_reversed',
    );
    expect(code(books({ pending, ...reconciled }), early)).to.equal('pending_operation');
    expect(code(books(reconciled), early)).to.equal('reversal_before_entry');
    expect(code(books(reconciled), { ...request, reversal_date: '2026-02-03' })).to.equal('reconciled_links');
    expect(
      code(books({ ...reconciled, entry: entry({ entry_date: '2026-01-15' }) }), {
        ...request,
        reversal_date: '2026-01-20',
      }),
    ).to.equal('period_locked');
    expect(code(books(reconciled))).to.equal('reconciled_links');
  });

  it('allows a reversal dated on the entry date, and the day after the lock date', () => {
    const onEntryDate = decideReversal(books(), { ...request, reversal_date: '2026-02-03' });
    expect(onEntryDate.outcome).to.equal('staged');
    const afterLock = decideReversal(books({ entry: entry({ entry_date: '2026-01-10' }) }), {
      ...request,
      reversal_date: '2026-02-01',
    });
    expect(afterLock.outcome).to.equal('staged');
  });

  it('allows reversing an entry dated in the closed period by a reversing entry dated after the lock date', () => {
    // The entry of 2026-01-10 lies on or before the lock date 2026-01-31: marking it reversed is a status change.
    const result = decideReversal(books({ entry: entry({ entry_date: '2026-01-10' }) }), {
      ...request,
      reversal_date: '2026-02-01',
    });
    if (result.outcome !== 'staged') throw new Error(`expected staged, got ${result.outcome}`);
    expect(result.plan.reversing_entry.entry_date).to.equal('2026-02-01');
  });

  it('refuses a reversal dated on the lock date itself: period_locked with the reversal and lock dates', () => {
    const result = decideReversal(books({ entry: entry({ entry_date: '2026-01-10' }) }), {
      ...request,
      reversal_date: '2026-01-31',
    });
    expect(result).to.deep.equal({
      outcome: 'refused',
      code: 'period_locked',
      details: { reversal_date: '2026-01-31', lock_date: '2026-01-31' },
    });
  });

  it('refuses to reverse a reversal', () => {
    const result = decideReversal(books({ entry: entry({ reversal_of: 'le_0' }) }), request);
    expect(result.outcome === 'refused' ? result.code : null).to.equal('entry_is_reversal');
  });

  it('returns the pending operation when the very same plan is pending for the same subject', () => {
    const first = decideReversal(books(), request);
    if (first.outcome !== 'staged') throw new Error('expected staged');
    const pending = [{ staged_operation_id: 'stg_1', subject_key: 'reverse:le_1', plan_hash: first.plan_hash }];
    expect(decideReversal(books({ pending }), request)).to.deep.equal({
      outcome: 'existing',
      staged_operation_id: 'stg_1',
    });
    const other = decideReversal(books({ pending }), { ...request, reason: 'another reason' });
    expect(other.outcome === 'refused' ? other.details : null).to.deep.equal({ staged_operation_ids: ['stg_1'] });
  });
});

describe('lockedReversal: the lock date at apply', () => {
  const plan = { ledger_entry_id: 'le_1', reversal_date: '2026-03-01' };

  it('names the entry, its reversal date and the lock date once the lock date reaches the reversal date', () => {
    expect(lockedReversal(plan, '2026-03-01')).to.deep.equal({
      reason: 'period_locked',
      lock_date: '2026-03-01',
      ledger_entry_id: 'le_1',
      reversal_date: '2026-03-01',
    });
    expect(lockedReversal(plan, '2026-03-31')).to.deep.equal({
      reason: 'period_locked',
      lock_date: '2026-03-31',
      ledger_entry_id: 'le_1',
      reversal_date: '2026-03-01',
    });
  });

  it('is null while the reversal date is after the lock date, or without a lock date', () => {
    expect(lockedReversal(plan, '2026-02-28')).to.equal(null);
    expect(lockedReversal(plan, null)).to.equal(null);
  });
});
