// docs/reference/http-api.md "Amount of each kind": every kind's amount from a
// plan built by hand, exact, and the base currency where a kind has none.
import { expect } from 'chai';
import type { InboxResolvePlan } from '../../shared/kinds/inbox-duplicates-resolve/plan.js';
import type { LinkRepairPlan } from '../../shared/kinds/ledger-link-repair/plan.js';
import type { ReconciliationPlan } from '../../shared/kinds/bank-reconcile/plan.js';
import type { ReversalPlan } from '../../shared/kinds/ledger-reversal/plan.js';
import type { StatementImportPlan } from '../../shared/kinds/statement-import/plan.js';
import type { JournalEntryPlan } from '../../shared/kinds/journal-entry/plan.js';
import type { BankMatchPlan } from '../../shared/kinds/bank-match/plan.js';
import type { RevertPlan } from '../../shared/kinds/revert/plan.js';
import type { PeriodClosePlan } from '../../shared/kinds/period-close/plan.js';
import { stagedAmount } from '../../shared/kinds/registry.js';
import { sumAbsMinor } from '../../shared/kinds/operation-amount.js';

const MAX = Number.MAX_SAFE_INTEGER;
const ACCOUNT = { bank_account: { id: 'ba_1', name: 'Main', currency: 'USD' } };

const reconciliation = (amounts: number[]): ReconciliationPlan => ({
  bank_account_id: 'ba_1',
  statement: { end_date: '2026-02-28', closing_balance_minor: 0, currency: 'USD', reference: null },
  opening_balance_minor: 0,
  cleared_total_minor: 0,
  closing_balance_minor: 0,
  transactions: amounts.map((amount_minor, i) => ({
    bank_transaction_id: `bt_${i}`,
    booking_date: '2026-02-01',
    amount_minor,
    links: [],
  })),
  left_out: { count: 0, first_ids: [] },
});

describe('the amount of each kind', () => {
  it('a reconciliation: Σ|amount| of its transactions, in the statement currency', () => {
    expect(stagedAmount('bank_reconcile', reconciliation([7_000, -2_500, 1]), {}, 'EUR')).to.deep.equal({
      amount_minor: 9_501,
      currency: 'USD',
    });
    expect(stagedAmount('bank_reconcile', reconciliation([]), {}, 'EUR')).to.deep.equal({
      amount_minor: 0,
      currency: 'USD',
    });
  });

  it("a link repair: Σ of moved, new and released link amounts, in the context's account currency, else the base", () => {
    const plan: LinkRepairPlan = {
      bank_account_id: 'ba_1',
      counterparty_id: 'cp_1',
      as_of: '2026-02-28',
      actions: [
        {
          kind: 'move',
          bank_transaction_id: 'bt_1',
          link_id: 'bl_1',
          from_ledger_entry_id: 'le_2',
          to_ledger_entry_id: 'le_1',
          amount_minor: 4_000,
        },
        { kind: 'link', bank_transaction_id: 'bt_2', ledger_entry_id: 'le_2', amount_minor: 1_500 },
        { kind: 'unlink', bank_transaction_id: 'bt_3', link_id: 'bl_3', ledger_entry_id: 'le_3', amount_minor: 250 },
      ],
      summary: {
        moves: 1,
        links: 1,
        unlinks: 1,
        moved_minor: 4_000,
        linked_minor: 1_500,
        unlinked_minor: 250,
        unallocated_transaction_minor: 0,
        uncovered_entry_minor: 0,
      },
    };
    expect(stagedAmount('ledger_link_repair', plan, ACCOUNT, 'EUR')).to.deep.equal({
      amount_minor: 5_750,
      currency: 'USD',
    });
    // Staged before the context was kept: the base currency.
    expect(stagedAmount('ledger_link_repair', plan, {}, 'EUR')).to.deep.equal({ amount_minor: 5_750, currency: 'EUR' });
  });

  it("a reversal: Σ debit_minor of the reversed entry's lines (the reversing entry's credits)", () => {
    const plan: ReversalPlan = {
      ledger_entry_id: 'le_1',
      reversal_date: '2026-03-01',
      reason: null,
      reversing_entry: {
        entry_date: '2026-03-01',
        description: 'Reversal',
        reference: 'R',
        counterparty_id: 'cp_1',
        currency: 'GBP',
        // The entry debited 1400 with 11,900 and 4000 with 100: its reversal credits them.
        lines: [
          { account: '1400', debit_minor: 0, credit_minor: 11_900 },
          { account: '4000', debit_minor: 0, credit_minor: 100 },
          { account: '8400', debit_minor: 10_000, credit_minor: 0 },
          { account: '3806', debit_minor: 2_000, credit_minor: 0 },
        ],
        reversal_of: 'le_1',
      },
      actions: [
        { kind: 'unlink', bank_transaction_id: 'bt_1', link_id: 'bl_1', ledger_entry_id: 'le_1', amount_minor: 999 },
      ],
    };
    expect(stagedAmount('ledger_reversal', plan, {}, 'EUR')).to.deep.equal({ amount_minor: 12_000, currency: 'GBP' });
  });

  it('a statement import: Σ|amount| of its new transactions, skipped ones not counted', () => {
    const txn = (id: string, amount_minor: number): StatementImportPlan['new_transactions'][number] => ({
      id,
      booking_date: '2026-11-03',
      value_date: null,
      amount_minor,
      currency: 'USD',
      counterparty_name: 'A',
      counterparty_iban: null,
      remittance_info: null,
      bank_reference: null,
      details: [],
      counterparty_id: null,
    });
    const plan: StatementImportPlan = {
      bank_account_id: 'ba_1',
      format: 'csv',
      file_sha256: '0'.repeat(64),
      statements: [],
      new_transactions: [txn('bt_1', 10_000), txn('bt_2', -2_000)],
      skipped: [
        {
          booking_date: '2026-11-04',
          amount_minor: -5_000,
          bank_reference: null,
          reason: 'same_fingerprint',
          existing_transaction_id: 'bt_0',
        },
      ],
    };
    expect(stagedAmount('statement_import', plan, {}, 'EUR')).to.deep.equal({ amount_minor: 12_000, currency: 'USD' });
  });

  it("a duplicate resolution: 0, in the organisation's base currency", () => {
    const plan: InboxResolvePlan = {
      group_id: 'dg_1',
      member_ids: ['doc_1', 'doc_2'],
      resolution: 'archive_duplicates',
      keep_document_id: 'doc_1',
      archive_document_ids: ['doc_2'],
      note: null,
    };
    expect(stagedAmount('inbox_duplicates_resolve', plan, ACCOUNT, 'CHF')).to.deep.equal({
      amount_minor: 0,
      currency: 'CHF',
    });
  });

  it("a journal entry: Σ debit_minor of its lines, in the entry's currency", () => {
    const plan: JournalEntryPlan = {
      ledger_entry_id: 'le_1',
      entry: {
        entry_date: '2026-03-02',
        description: 'Fees',
        reference: 'F-1',
        counterparty_id: 'cp_1',
        currency: 'USD',
        lines: [
          { account: '6855', account_name: null, debit_minor: 1_000, credit_minor: 0 },
          { account: '6856', account_name: null, debit_minor: 250, credit_minor: 0 },
          { account: '1600', account_name: null, debit_minor: 0, credit_minor: 1_250 },
        ],
      },
      debit_total_minor: 1_250,
      credit_total_minor: 1_250,
      settlement_minor: -1_250,
      bank_link: null,
      document_id: null,
      note: null,
    };
    expect(stagedAmount('journal_entry', plan, {}, 'EUR')).to.deep.equal({ amount_minor: 1_250, currency: 'USD' });
  });

  it("a bank match: Σ of its pairs' amounts, in the account's currency", () => {
    const pair = (t: string, e: string, amount_minor: number) => ({
      bank_transaction_id: t,
      ledger_entry_id: e,
      amount_minor,
    });
    const plan: BankMatchPlan = {
      bank_account_id: 'ba_1',
      currency: 'USD',
      pairs: [pair('bt_1', 'le_1', 12_000), pair('bt_1', 'le_2', 18_000), pair('bt_2', 'le_2', 7)],
      transactions: [],
      entries: [],
      total_minor: 30_007,
      note: null,
    };
    expect(stagedAmount('bank_match', plan, {}, 'EUR')).to.deep.equal({ amount_minor: 30_007, currency: 'USD' });
  });

  it("a revert: the reverted operation's amount and currency, kept in its context", () => {
    const plan: RevertPlan = { reverts: 'stg_1', reverts_kind: 'bank_reconcile', changes: [] };
    const reverted = { staged_operation_id: 'stg_1', kind: 'bank_reconcile', amount_minor: 9_501, currency: 'USD' };
    expect(stagedAmount('revert', plan, { reverted }, 'EUR')).to.deep.equal({ amount_minor: 9_501, currency: 'USD' });
  });

  it("a period close and a policy change: 0, in the organisation's base currency", () => {
    const close: PeriodClosePlan = {
      through: '2026-03-31',
      lock_date_before: null,
      note: null,
      entries: 40,
      bank_transactions: 60,
    };
    expect(stagedAmount('period_close', close, ACCOUNT, 'CHF')).to.deep.equal({ amount_minor: 0, currency: 'CHF' });
    expect(stagedAmount('approval_policy', {}, ACCOUNT, 'CHF')).to.deep.equal({ amount_minor: 0, currency: 'CHF' });
  });

  it('sums exactly up to 2^53 − 1 and saturates there past it', () => {
    expect(sumAbsMinor([MAX - 1, -1])).to.equal(MAX);
    expect(sumAbsMinor([MAX, -MAX, MAX])).to.equal(MAX);
    // Floats would round 2^53 − 1 + 2 to 2^53 + 0 or + 2; the sum is clamped instead.
    expect(sumAbsMinor([MAX, 2])).to.equal(MAX);
    expect(stagedAmount('bank_reconcile', reconciliation([MAX, -MAX]), {}, 'EUR').amount_minor).to.equal(MAX);
  });
});
