// The bank match rule (shared/kinds/bank-match/plan.ts) and its journal
// (shared/domain/apply-journal.ts, new links): exact plans, the refusal order,
// the pending gate, and the links apply inserts.
import { expect } from 'chai';
import { pairLinkId } from '../../shared/kinds/bank-match/journal.js';
import { planJournalWithLinks } from '../../shared/kinds/journals.js';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Org } from '../../shared/domain/books.js';
import {
  bankMatchSubjectKey,
  decideBankMatch,
  type BankMatchBooks,
  type MatchPair,
} from '../../shared/kinds/bank-match/plan.js';
import { invoiceLines } from '../helpers/books.js';

const org: Org = {
  id: 'org_1',
  name: 'Org',
  base_currency: 'EUR',
  lock_date: null,
  settlement_accounts: ['1400', '1600'],
  require_distinct_approver: true,
  version: 1,
};
const account: BankAccount = {
  id: 'ba_1',
  name: 'Main',
  currency: 'EUR',
  ledger_account: '1200',
  reconciled_through: null,
  opening_balance_minor: 0,
  version: 2,
};
const txn = (id: string, amount: number, fields: Partial<BankTransaction> = {}): BankTransaction => ({
  id,
  bank_account_id: 'ba_1',
  booking_date: '2026-03-01',
  amount_minor: amount,
  currency: 'EUR',
  counterparty_id: 'cp_1',
  counterparty_name: 'Customer',
  remittance_info: '',
  status: 'unreconciled',
  reconciliation_id: null,
  version: 4,
  ...fields,
});
/** A receivable (amount > 0: debit 1400) or a payable (< 0: credit 1600). */
const entry = (id: string, amount: number, fields: Partial<LedgerEntry> = {}): LedgerEntry => ({
  id,
  entry_date: '2026-02-01',
  description: 'Invoice',
  reference: `REF-${id}`,
  counterparty_id: 'cp_1',
  currency: 'EUR',
  lines: invoiceLines(amount),
  status: 'posted',
  reversal_of: null,
  reversed_by: null,
  version: 5,
  ...fields,
});
const link = (id: string, t: string, e: string, amount: number): BankLink => ({
  id,
  bank_transaction_id: t,
  ledger_entry_id: e,
  amount_minor: amount,
  created_at: '2026-03-01T00:00:00.000Z',
  created_by: 'alice',
  version: 1,
});
const pair = (t: string, e: string, amount: number): MatchPair => ({
  bank_transaction_id: t,
  ledger_entry_id: e,
  amount_minor: amount,
});
const books = (fields: Partial<BankMatchBooks> = {}): BankMatchBooks => ({
  org,
  account,
  transactions: [txn('bt_1', 30_000), txn('bt_2', 5_000), txn('bt_out', -700)],
  entries: [entry('le_a', 12_000), entry('le_b', 20_000), entry('le_pay', -700)],
  links: [],
  pending: [],
  ...fields,
});
const decide = (matches: MatchPair[], b: BankMatchBooks = books()) =>
  decideBankMatch(b, { bank_account_id: 'ba_1', matches, note: null });

describe('bank match plan', () => {
  it('1:N and N:1 in one plan: pairs by (transaction, entry), open before and after, claim and preconditions', () => {
    const d = decide(
      [pair('bt_2', 'le_b', 5_000), pair('bt_1', 'le_b', 10_000), pair('bt_1', 'le_a', 12_000)],
      books({ links: [link('lnk_0', 'bt_9', 'le_b', 4_000), link('lnk_0', 'bt_9', 'le_b', 4_000)] }),
    );
    expect(d.outcome).to.equal('staged');
    if (d.outcome !== 'staged') return;
    expect(d.plan).to.deep.equal({
      bank_account_id: 'ba_1',
      currency: 'EUR',
      pairs: [pair('bt_1', 'le_a', 12_000), pair('bt_1', 'le_b', 10_000), pair('bt_2', 'le_b', 5_000)],
      transactions: [
        {
          bank_transaction_id: 'bt_1',
          amount_minor: 30_000,
          linked_before_minor: 0,
          open_before_minor: 30_000,
          open_after_minor: 8_000,
        },
        {
          bank_transaction_id: 'bt_2',
          amount_minor: 5_000,
          linked_before_minor: 0,
          open_before_minor: 5_000,
          open_after_minor: 0,
        },
      ],
      entries: [
        {
          ledger_entry_id: 'le_a',
          open_amount_minor: 12_000,
          linked_before_minor: 0,
          open_before_minor: 12_000,
          open_after_minor: 0,
        },
        {
          ledger_entry_id: 'le_b',
          open_amount_minor: 20_000,
          linked_before_minor: 4_000,
          open_before_minor: 16_000,
          open_after_minor: 1_000,
        },
      ],
      total_minor: 27_000,
      note: null,
    });
    expect(d.locks).to.deep.equal({
      subject_key: bankMatchSubjectKey({
        bank_account_id: 'ba_1',
        matches: [pair('bt_1', 'le_a', 1), pair('bt_1', 'le_b', 1), pair('bt_2', 'le_b', 1)],
      }),
      entry_ids: ['le_a', 'le_b'],
      transaction_ids: ['bt_1', 'bt_2'],
    });
    expect(d.locks.subject_key).to.match(/^match:ba_1:[0-9a-f]{24}$/);
    // The link seen twice is one precondition.
    expect(d.preconditions).to.deep.equal([
      { collection: 'bank_accounts', id: 'ba_1', version: 2 },
      { collection: 'bank_transactions', id: 'bt_1', version: 4 },
      { collection: 'bank_transactions', id: 'bt_2', version: 4 },
      { collection: 'ledger_entries', id: 'le_a', version: 5 },
      { collection: 'ledger_entries', id: 'le_b', version: 5 },
      { collection: 'bank_links', id: 'lnk_0', version: 1 },
    ]);
  });

  it('the same pairs in another order are the same plan and scope', () => {
    const a = decide([pair('bt_1', 'le_a', 12_000), pair('bt_2', 'le_b', 5_000)]);
    const b = decide([pair('bt_2', 'le_b', 5_000), pair('bt_1', 'le_a', 12_000)]);
    expect(a.outcome === 'staged' && b.outcome === 'staged' && [a.plan_hash, a.locks.subject_key]).to.deep.equal(
      b.outcome === 'staged' && [b.plan_hash, b.locks.subject_key],
    );
  });

  it('refusals in order: the first rule that fails answers, whatever later ones would say', () => {
    const code = (matches: MatchPair[], b?: BankMatchBooks) => {
      const d = decide(matches, b);
      return d.outcome === 'refused' ? d.code : d.outcome;
    };
    // duplicate before the unknown account
    expect(code([pair('bt_1', 'le_a', 1), pair('bt_1', 'le_a', 2)], books({ account: null }))).to.equal(
      'duplicate_pair',
    );
    // an unknown account before an unknown transaction
    expect(code([pair('bt_x', 'le_a', 1)], books({ account: null }))).to.equal('not_found');
    // another account's transaction before a currency mismatch
    expect(
      code(
        [pair('bt_o', 'le_usd', 1)],
        books({
          transactions: [txn('bt_o', 100, { bank_account_id: 'ba_2' })],
          entries: [entry('le_usd', 100, { currency: 'USD' })],
        }),
      ),
    ).to.equal('transaction_not_on_account');
    // currency before direction
    expect(
      code([pair('bt_1', 'le_usd', 1)], books({ entries: [entry('le_usd', -100, { currency: 'USD' })] })),
    ).to.equal('currency_mismatch');
    // currency before a reversing entry; a reversing entry before direction (it looks like a payable)
    expect(
      code(
        [pair('bt_1', 'le_rv', 1)],
        books({ entries: [entry('le_rv', -100, { currency: 'USD', reversal_of: 'le_x' })] }),
      ),
    ).to.equal('currency_mismatch');
    const reversing = decide(
      [pair('bt_out', 'le_rv', 100)],
      books({ entries: [entry('le_rv', -100, { reversal_of: 'le_x' })] }),
    );
    expect(reversing).to.deep.include({
      outcome: 'refused',
      code: 'entry_is_reversal',
      details: { ledger_entry_id: 'le_rv', reversal_of: 'le_x' },
    });
    // direction before over-allocation; a reversed receivable is no receivable
    expect(code([pair('bt_out', 'le_a', 99_999)])).to.equal('direction_mismatch');
    expect(code([pair('bt_1', 'le_r', 1)], books({ entries: [entry('le_r', 100, { status: 'reversed' })] }))).to.equal(
      'direction_mismatch',
    );
    // the transaction before the entry
    expect(code([pair('bt_2', 'le_a', 12_000)])).to.equal('over_allocated_transaction');
    expect(code([pair('bt_1', 'le_a', 12_001)])).to.equal('over_allocated_entry');
    // over-allocation before already linked
    expect(code([pair('bt_1', 'le_a', 12_000)], books({ links: [link('lnk_1', 'bt_1', 'le_a', 1)] }))).to.equal(
      'over_allocated_entry',
    );
    expect(code([pair('bt_1', 'le_a', 100)], books({ links: [link('lnk_1', 'bt_1', 'le_a', 1)] }))).to.equal(
      'already_linked',
    );
  });

  it('a sum of pairs past 2^53 − 1 is over-allocated', () => {
    const max = Number.MAX_SAFE_INTEGER;
    const d = decide(
      [pair('bt_big', 'le_big', max), pair('bt_big', 'le_big2', 1)],
      books({ transactions: [txn('bt_big', max)], entries: [entry('le_big', max), entry('le_big2', 1)] }),
    );
    expect(d).to.deep.include({ outcome: 'refused', code: 'over_allocated_transaction' });
  });

  it('the pending gate: a holder of the very same plan is `existing`, any other `pending_operation`; refusals stand', () => {
    const matches = [pair('bt_1', 'le_a', 12_000)];
    const staged = decide(matches);
    if (staged.outcome !== 'staged') throw new Error('not staged');
    const same = { staged_operation_id: 'stg_1', subject_key: staged.locks.subject_key, plan_hash: staged.plan_hash };
    expect(decide(matches, books({ pending: [same] }))).to.deep.equal({
      outcome: 'existing',
      staged_operation_id: 'stg_1',
    });
    expect(decide(matches, books({ pending: [{ ...same, plan_hash: 'other' }] }))).to.deep.equal({
      outcome: 'refused',
      code: 'pending_operation',
      details: { staged_operation_ids: ['stg_1'] },
    });
    expect(decide([pair('bt_out', 'le_a', 1)], books({ pending: [same] }))).to.include({
      outcome: 'refused',
      code: 'direction_mismatch',
    });
  });

  it('apply inserts one link per pair under an id derived from the operation and the pair', () => {
    const d = decide([pair('bt_1', 'le_b', 10_000), pair('bt_1', 'le_a', 12_000)]);
    if (d.outcome !== 'staged') throw new Error('not staged');
    const ctx = { staged_operation_id: 'stg_9', org_id: 'org_1', actor: 'bob', now: '2026-03-10T12:00:00.000Z' };
    const applyBooks = { entries: books().entries, accounts: [account], transactions: books().transactions, links: [] };
    const journal = planJournalWithLinks('bank_match', d.plan, applyBooks, ctx);
    expect(journal.ok).to.equal(true);
    if (!journal.ok) return;
    const idA = pairLinkId(ctx, 'bt_1', 'le_a');
    const idB = pairLinkId(ctx, 'bt_1', 'le_b');
    expect(idA).to.match(/^lnk_[0-9a-f]{24}$/);
    expect(journal.value.links).to.deep.equal([
      { action_index: 0, link_id: idA },
      { action_index: 1, link_id: idB },
    ]);
    expect(journal.value.writes[0]).to.deep.equal({
      action: 'insert',
      collection: 'bank_links',
      id: idA,
      doc: {
        bank_transaction_id: 'bt_1',
        ledger_entry_id: 'le_a',
        amount_minor: 12_000,
        created_at: '2026-03-10T12:00:00.000Z',
        created_by: 'bob',
        version: 1,
      },
    });
    // A pair linked meanwhile (a plan that no longer fits its books) fails instead of linking twice.
    const linked = planJournalWithLinks(
      'bank_match',
      d.plan,
      { ...applyBooks, links: [link('lnk_x', 'bt_1', 'le_a', 1)] },
      ctx,
    );
    expect(!linked.ok && linked.error.details).to.deep.equal({ reason: 'bank_link_exists', id: 'lnk_x' });
  });
});
