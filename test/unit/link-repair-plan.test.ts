// docs/reference/http-api.md §8: the FIFO ledger ↔ bank link repair, one rule per test, with
// the books built inline and the exact plan written out.
import { expect } from 'chai';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../../shared/domain/books.js';
import { allocateFifo } from '../../shared/domain/fifo-allocation.js';
import {
  planLinkRepair,
  type LinkRepairOutcome,
  type LinkRepairPlan,
} from '../../shared/kinds/ledger-link-repair/plan.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import * as records from '../helpers/records.js';

// ---------------------------------------------------------------------------
// Builders: EUR account ba_main, counterparty cp_1, as_of 2025-06-30.

const AS_OF = '2025-06-30';
const ACCOUNT: BankAccount = records.account({ version: 3 });

/** A customer invoice: debit 1400 / credit 8400, open amount +amount. */
function receivable(id: string, entryDate: string, amount: number, more: Partial<LedgerEntry> = {}): LedgerEntry {
  return records.entry({ id, entry_date: entryDate, lines: records.receivableLines(amount), ...more });
}

/** A supplier bill: debit 4000 / credit 1600, open amount −amount. */
function payable(id: string, entryDate: string, amount: number, more: Partial<LedgerEntry> = {}): LedgerEntry {
  return records.entry({ id, entry_date: entryDate, lines: records.payableLines(amount), ...more });
}

/** A transaction of ba_main with cp_1; `amount` is signed (+ in, − out). */
function txn(id: string, bookingDate: string, amount: number, more: Partial<BankTransaction> = {}): BankTransaction {
  return records.txn({
    id,
    booking_date: bookingDate,
    amount_minor: amount,
    counterparty_name: 'Customer One',
    ...more,
  });
}

const reconciled = { status: 'reconciled', reconciliation_id: 'rec_1' } as const;

function link(
  id: string,
  transactionId: string,
  entryId: string,
  amount: number,
  createdAt = '2025-05-01T08:00:00.000Z',
): BankLink {
  return records.link({
    id,
    bank_transaction_id: transactionId,
    ledger_entry_id: entryId,
    amount_minor: amount,
    created_at: createdAt,
  });
}

interface Books {
  transactions?: BankTransaction[];
  entries?: LedgerEntry[];
  links?: BankLink[];
}

function repair(books: Books): LinkRepairOutcome {
  return planLinkRepair({
    account: ACCOUNT,
    counterparty_id: 'cp_1',
    as_of: AS_OF,
    settlement_accounts: ['1400', '1600'],
    transactions: books.transactions ?? [],
    entries: books.entries ?? [],
    links: books.links ?? [],
  });
}

/** The plan of a staged outcome (fails the test otherwise). */
function stagedPlan(books: Books): LinkRepairPlan {
  const result = repair(books);
  expect(result.outcome, JSON.stringify(result.blockers)).to.equal('staged');
  return result.plan!;
}

const move = (t: string, l: string, from: string, to: string, amount: number) =>
  ({
    kind: 'move',
    bank_transaction_id: t,
    link_id: l,
    from_ledger_entry_id: from,
    to_ledger_entry_id: to,
    amount_minor: amount,
  }) as const;
const linkTo = (t: string, e: string, amount: number) =>
  ({ kind: 'link', bank_transaction_id: t, ledger_entry_id: e, amount_minor: amount }) as const;
const unlink = (t: string, l: string, e: string, amount: number) =>
  ({ kind: 'unlink', bank_transaction_id: t, link_id: l, ledger_entry_id: e, amount_minor: amount }) as const;

function summary(s: Partial<LinkRepairPlan['summary']>): LinkRepairPlan['summary'] {
  return {
    moves: 0,
    links: 0,
    unlinks: 0,
    moved_minor: 0,
    linked_minor: 0,
    unlinked_minor: 0,
    unallocated_transaction_minor: 0,
    uncovered_entry_minor: 0,
    ...s,
  };
}

// ---------------------------------------------------------------------------

describe('link repair (docs/reference/http-api.md §8)', () => {
  describe('record set', () => {
    it('walks only transactions of this account and counterparty booked on or before as_of', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 500)],
        transactions: [
          txn('bt_in', '2025-06-30', 100),
          txn('bt_after', '2025-07-01', 100),
          txn('bt_other_account', '2025-02-01', 100, { bank_account_id: 'ba_savings' }),
          txn('bt_other_counterparty', '2025-02-01', 100, { counterparty_id: 'cp_2' }),
        ],
      });
      expect(plan.actions).to.deep.equal([linkTo('bt_in', 'le_1', 100)]);
      expect(plan.summary).to.deep.equal(summary({ links: 1, linked_minor: 100, uncovered_entry_minor: 400 }));
    });

    it('ignores a transaction without counterparty (a statement import that matched none)', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 500)],
        transactions: [
          txn('bt_in', '2025-06-30', 100),
          txn('bt_no_counterparty', '2025-02-01', 100, { counterparty_id: null }),
        ],
      });
      expect(plan.actions).to.deep.equal([linkTo('bt_in', 'le_1', 100)]);
      expect(plan.summary).to.deep.equal(summary({ links: 1, linked_minor: 100, uncovered_entry_minor: 400 }));
    });

    it('allocates only to posted, non-reversal entries of the counterparty dated on or before as_of with an open amount', () => {
      const plan = stagedPlan({
        entries: [
          receivable('le_ok', '2025-06-30', 50),
          receivable('le_after', '2025-07-01', 100),
          receivable('le_other_counterparty', '2025-01-01', 100, { counterparty_id: 'cp_2' }),
          receivable('le_reversed', '2025-01-01', 100, { status: 'reversed', reversed_by: 'le_reversal' }),
          receivable('le_reversal', '2025-01-02', 100, { reversal_of: 'le_credit_note' }),
          records.entry({
            id: 'le_no_settlement',
            entry_date: '2025-01-01',
            lines: [
              { account: '6000', debit_minor: 100, credit_minor: 0 },
              { account: '1200', debit_minor: 0, credit_minor: 100 },
            ],
          }),
        ],
        transactions: [txn('bt_1', '2025-03-01', 100)],
      });
      expect(plan.actions).to.deep.equal([linkTo('bt_1', 'le_ok', 50)]);
      expect(plan.summary).to.deep.equal(summary({ links: 1, linked_minor: 50, unallocated_transaction_minor: 50 }));
    });

    it('treats an entry that names its reversing entry (reversed_by) as reversed, whatever its status says', () => {
      const plan = stagedPlan({
        entries: [
          receivable('le_1', '2025-01-10', 100, { reversed_by: 'le_9' }),
          receivable('le_2', '2025-01-11', 100),
        ],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [link('lnk_1', 'bt_1', 'le_1', 100)],
      });
      expect(plan.actions).to.deep.equal([move('bt_1', 'lnk_1', 'le_1', 'le_2', 100)]);
    });

    it('reads a record passed twice once, keeping the higher version', () => {
      const result = repair({
        entries: [
          receivable('le_1', '2025-01-10', 100, { version: 2 }),
          receivable('le_1', '2025-01-10', 70, { version: 1 }),
        ],
        transactions: [txn('bt_1', '2025-03-01', 100), txn('bt_1', '2025-03-01', 100)],
      });
      if (result.outcome !== 'staged') expect.fail(`expected staged, got ${result.outcome}`);
      expect(result.plan.actions).to.deep.equal([linkTo('bt_1', 'le_1', 100)]);
      expect(result.preconditions.filter((p) => p.id === 'le_1')).to.deep.equal([
        { collection: 'ledger_entries', id: 'le_1', version: 2 },
      ]);
    });
  });

  describe('rule 1: frozen links', () => {
    it('never changes links of reconciled transactions and lets them consume entry capacity first', () => {
      // bt_0 is reconciled against the later invoice: that stays, and le_2 has only 40 left.
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_0', '2025-03-05', 60, reconciled), txn('bt_1', '2025-03-01', 150)],
        links: [link('lnk_0', 'bt_0', 'le_2', 60)],
      });
      expect(plan.actions).to.deep.equal([linkTo('bt_1', 'le_1', 100), linkTo('bt_1', 'le_2', 40)]);
      expect(plan.summary).to.deep.equal(summary({ links: 2, linked_minor: 140, unallocated_transaction_minor: 10 }));
    });

    it('does not walk reconciled in-scope transactions, even when their links are out of FIFO order', () => {
      const result = repair({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_0', '2025-02-01', 100, reconciled), txn('bt_1', '2025-03-01', 80)],
        links: [link('lnk_0', 'bt_0', 'le_2', 100), link('lnk_1', 'bt_1', 'le_1', 80)],
      });
      expect(result.outcome).to.equal('noop');
      expect(result.plan!.actions).to.deep.equal([]);
      expect(result.plan!.summary).to.deep.equal(summary({ uncovered_entry_minor: 20 }));
    });

    it('keeps links from transactions outside the scope and lets them consume capacity', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [
          txn('bt_1', '2025-03-01', 100),
          txn('bt_after', '2025-07-15', 30), // same account and counterparty, after as_of
        ],
        links: [
          link('lnk_1', 'bt_1', 'le_1', 50),
          link('lnk_after', 'bt_after', 'le_1', 30),
          link('lnk_savings', 'bt_savings', 'le_1', 70), // another account's transaction, not even passed
        ],
      });
      expect(plan.actions).to.deep.equal([move('bt_1', 'lnk_1', 'le_1', 'le_2', 50), linkTo('bt_1', 'le_2', 50)]);
      expect(plan.summary).to.deep.equal(summary({ moves: 1, moved_minor: 50, links: 1, linked_minor: 50 }));
    });
  });

  describe('rule 2: the FIFO walk', () => {
    it('moves an out-of-order link to the oldest open invoice', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [link('lnk_1', 'bt_1', 'le_2', 100)],
      });
      expect(plan.actions).to.deep.equal([move('bt_1', 'lnk_1', 'le_2', 'le_1', 100)]);
      expect(plan.summary).to.deep.equal(summary({ moves: 1, moved_minor: 100, uncovered_entry_minor: 100 }));
    });

    it('splits partial payments across the oldest entries, advancing whichever is used up', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 60), txn('bt_2', '2025-03-02', 90)],
      });
      expect(plan.actions).to.deep.equal([
        linkTo('bt_1', 'le_1', 60),
        linkTo('bt_2', 'le_1', 40),
        linkTo('bt_2', 'le_2', 50),
      ]);
      expect(plan.summary).to.deep.equal(summary({ links: 3, linked_minor: 150, uncovered_entry_minor: 50 }));
    });

    it('allocates inflows only to receivables and outflows only to payables', () => {
      // bt_out was linked to a receivable: that amount moves to the payable.
      const plan = stagedPlan({
        entries: [receivable('le_r', '2025-01-05', 100), payable('le_p', '2025-01-10', 80)],
        transactions: [txn('bt_out', '2025-02-01', -80), txn('bt_in', '2025-02-02', 100)],
        links: [link('lnk_1', 'bt_out', 'le_r', 30)],
      });
      expect(plan.actions).to.deep.equal([
        move('bt_out', 'lnk_1', 'le_r', 'le_p', 30),
        linkTo('bt_out', 'le_p', 50),
        linkTo('bt_in', 'le_r', 100),
      ]);
      expect(plan.summary).to.deep.equal(summary({ moves: 1, moved_minor: 30, links: 2, linked_minor: 150 }));
    });

    it('orders by date only: a payment may settle an invoice dated after it', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-04-01', 100)],
        transactions: [txn('bt_1', '2025-03-01', 100)],
      });
      expect(plan.actions).to.deep.equal([linkTo('bt_1', 'le_1', 100)]);
    });

    it('breaks date ties by id in code-unit order, for transactions and for entries', () => {
      // 'B' (0x42) sorts before 'a' (0x61) and 'C' before 'b'; localeCompare would not.
      const plan = stagedPlan({
        entries: [receivable('le_a', '2025-01-10', 100), receivable('le_B', '2025-01-10', 100)],
        transactions: [txn('bt_b', '2025-02-01', 100), txn('bt_C', '2025-02-01', 50)],
      });
      expect(plan.actions).to.deep.equal([
        linkTo('bt_C', 'le_B', 50),
        linkTo('bt_b', 'le_B', 50),
        linkTo('bt_b', 'le_a', 50),
      ]);
    });

    it('leaves an over-payment remainder unallocated and releases what exceeds the entry', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 150)],
        links: [link('lnk_1', 'bt_1', 'le_1', 120)],
      });
      expect(plan.actions).to.deep.equal([unlink('bt_1', 'lnk_1', 'le_1', 20)]);
      expect(plan.summary).to.deep.equal(
        summary({ unlinks: 1, unlinked_minor: 20, unallocated_transaction_minor: 50 }),
      );
    });
  });

  describe('rule 3: the diff into actions', () => {
    it("releases a link to another counterparty's entry whole and reuses the amount", () => {
      const plan = stagedPlan({
        entries: [
          receivable('le_1', '2025-01-10', 100),
          receivable('le_x', '2025-01-01', 100, { counterparty_id: 'cp_2' }),
        ],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [link('lnk_1', 'bt_1', 'le_x', 100)],
      });
      expect(plan.actions).to.deep.equal([move('bt_1', 'lnk_1', 'le_x', 'le_1', 100)]);
    });

    it('releases links to a reversed entry and to a reversal, outside-scope entries by id', () => {
      const plan = stagedPlan({
        entries: [
          receivable('le_1', '2025-01-10', 100),
          receivable('le_2', '2025-01-11', 100, { status: 'reversed', reversed_by: 'le_3' }),
          payable('le_3', '2025-01-12', 100, { reversal_of: 'le_2' }),
        ],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [link('lnk_9', 'bt_1', 'le_2', 60), link('lnk_1', 'bt_1', 'le_3', 40)],
      });
      expect(plan.actions).to.deep.equal([
        move('bt_1', 'lnk_9', 'le_2', 'le_1', 60),
        move('bt_1', 'lnk_1', 'le_3', 'le_1', 40),
      ]);
    });

    it('releases from the newest link first (created_at, then id, descending) when one pair has several links', () => {
      const plan = stagedPlan({
        entries: [receivable('le_1', '2025-01-10', 50), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [
          link('lnk_a', 'bt_1', 'le_2', 60, '2025-03-02T09:00:00.000Z'),
          link('lnk_b', 'bt_1', 'le_2', 20, '2025-03-02T10:00:00.000Z'),
          link('lnk_c', 'bt_1', 'le_2', 20, '2025-03-02T10:00:00.000Z'),
        ],
      });
      expect(plan.actions).to.deep.equal([
        move('bt_1', 'lnk_c', 'le_2', 'le_1', 20),
        move('bt_1', 'lnk_b', 'le_2', 'le_1', 20),
        move('bt_1', 'lnk_a', 'le_2', 'le_1', 10),
      ]);
    });

    it('lists transactions in FIFO order; per transaction moves, links, then unlinks, in entry order, outside-scope entries last by id', () => {
      const plan = stagedPlan({
        entries: [
          receivable('le_1', '2025-01-01', 100),
          receivable('le_2', '2025-01-02', 100),
          receivable('le_x9', '2024-12-01', 500, { counterparty_id: 'cp_2' }),
          receivable('le_x1', '2024-12-02', 500, { counterparty_id: 'cp_2' }),
        ],
        transactions: [txn('bt_1', '2025-02-02', 100), txn('bt_2', '2025-02-01', 120)],
        links: [
          link('lnk_5', 'bt_2', 'le_2', 50),
          link('lnk_6', 'bt_2', 'le_x9', 10),
          link('lnk_1', 'bt_1', 'le_x9', 40),
          link('lnk_2', 'bt_1', 'le_x1', 30),
          link('lnk_3', 'bt_1', 'le_1', 30),
        ],
      });
      // Target: bt_2 → le_1 100, le_2 20; bt_1 → le_2 80 (20 unallocated).
      expect(plan.actions).to.deep.equal([
        move('bt_2', 'lnk_5', 'le_2', 'le_1', 30),
        move('bt_2', 'lnk_6', 'le_x9', 'le_1', 10),
        linkTo('bt_2', 'le_1', 60),
        move('bt_1', 'lnk_3', 'le_1', 'le_2', 30),
        move('bt_1', 'lnk_2', 'le_x1', 'le_2', 30),
        move('bt_1', 'lnk_1', 'le_x9', 'le_2', 20),
        unlink('bt_1', 'lnk_1', 'le_x9', 20),
      ]);
      expect(plan.summary).to.deep.equal(
        summary({
          moves: 5,
          moved_minor: 120,
          links: 1,
          linked_minor: 60,
          unlinks: 1,
          unlinked_minor: 20,
          unallocated_transaction_minor: 20,
        }),
      );
    });

    it('gives the same plan whatever the order of the input arrays', () => {
      const books: Required<Books> = {
        entries: [
          receivable('le_1', '2025-01-01', 100),
          receivable('le_2', '2025-01-02', 100),
          receivable('le_x', '2025-01-01', 90, { counterparty_id: 'cp_2' }),
        ],
        transactions: [txn('bt_1', '2025-02-02', 100), txn('bt_2', '2025-02-01', 120)],
        links: [
          link('lnk_1', 'bt_1', 'le_x', 40),
          link('lnk_2', 'bt_1', 'le_2', 60),
          link('lnk_3', 'bt_2', 'le_2', 50),
        ],
      };
      const forward = repair(books);
      const backward = repair({
        entries: [...books.entries].reverse(),
        transactions: [...books.transactions].reverse(),
        links: [...books.links].reverse(),
      });
      expect(forward.outcome).to.equal('staged');
      expect(backward).to.deep.equal(forward);
    });
  });

  describe('rule 4: outcome and blockers', () => {
    it('is noop, with the plan and its hash, when the links already follow FIFO', () => {
      const result = repair({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-02-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 150), txn('bt_2', '2025-03-02', 30)],
        links: [
          link('lnk_1', 'bt_1', 'le_1', 100),
          link('lnk_2', 'bt_1', 'le_2', 50),
          link('lnk_3', 'bt_2', 'le_2', 30),
        ],
      });
      const plan = {
        bank_account_id: 'ba_main',
        counterparty_id: 'cp_1',
        as_of: AS_OF,
        actions: [],
        summary: summary({ uncovered_entry_minor: 20 }),
      };
      expect(result).to.deep.equal({ outcome: 'noop', blockers: [], plan, plan_hash: planHash(plan) });
    });

    it('blocks on currency_mismatch, naming the in-scope transactions and entries in another currency', () => {
      const result = repair({
        entries: [
          receivable('le_usd', '2025-01-10', 100, { currency: 'USD' }),
          receivable('le_eur', '2025-01-11', 100),
          receivable('le_usd_other', '2025-01-10', 100, { currency: 'USD', counterparty_id: 'cp_2' }),
        ],
        transactions: [
          txn('bt_usd', '2025-03-01', 100, { currency: 'USD' }),
          txn('bt_usd_after', '2025-07-01', 100, { currency: 'USD' }),
        ],
      });
      expect(result).to.deep.equal({
        outcome: 'blocked',
        blockers: [{ code: 'currency_mismatch', ids: ['bt_usd', 'le_usd'] }],
        plan: null,
        plan_hash: null,
      });
    });

    it('blocks on frozen_link_to_reversed_entry when a reconciled transaction is linked to a reversed entry', () => {
      const result = repair({
        entries: [
          receivable('le_1', '2025-01-10', 100),
          receivable('le_rev', '2025-01-05', 100, { status: 'reversed', reversed_by: 'le_9' }),
        ],
        transactions: [txn('bt_r', '2025-02-01', 100, reconciled), txn('bt_u', '2025-02-02', 50)],
        links: [link('lnk_r', 'bt_r', 'le_rev', 100), link('lnk_u', 'bt_u', 'le_rev', 50)], // lnk_u is walked: released, not a blocker
      });
      expect(result).to.deep.equal({
        outcome: 'blocked',
        blockers: [{ code: 'frozen_link_to_reversed_entry', ids: ['lnk_r'] }],
        plan: null,
        plan_hash: null,
      });
    });

    it("blocks on frozen_link_to_other_counterparty when a reconciled transaction is linked to another counterparty's entry", () => {
      const result = repair({
        entries: [
          receivable('le_1', '2025-01-10', 100),
          receivable('le_x', '2025-01-05', 100, { counterparty_id: 'cp_2' }),
        ],
        transactions: [txn('bt_r', '2025-02-01', 100, reconciled)],
        links: [link('lnk_o', 'bt_r', 'le_x', 100)],
      });
      expect(result).to.deep.equal({
        outcome: 'blocked',
        blockers: [{ code: 'frozen_link_to_other_counterparty', ids: ['lnk_o'] }],
        plan: null,
        plan_hash: null,
      });
    });

    it("blocks on frozen_over_allocation when frozen links exceed an entry's open amount", () => {
      const result = repair({
        entries: [receivable('le_1', '2025-01-10', 100), receivable('le_2', '2025-01-11', 100)],
        transactions: [txn('bt_r', '2025-02-01', 80, reconciled)],
        links: [
          link('lnk_a', 'bt_r', 'le_1', 80),
          link('lnk_b', 'bt_savings', 'le_1', 30), // another account: frozen too
          link('lnk_c', 'bt_savings', 'le_2', 100), // exactly the capacity: fine
        ],
      });
      expect(result).to.deep.equal({
        outcome: 'blocked',
        blockers: [{ code: 'frozen_over_allocation', ids: ['le_1'] }],
        plan: null,
        plan_hash: null,
      });
    });

    it('lists every blocker in contract order, each with sorted ids', () => {
      const result = repair({
        entries: [
          receivable('le_9', '2025-01-10', 100, { currency: 'USD' }),
          receivable('le_1', '2025-01-11', 100),
          receivable('le_rev', '2025-01-05', 100, { status: 'reversed', reversed_by: 'le_rr' }),
          receivable('le_x', '2025-01-05', 100, { counterparty_id: 'cp_2' }),
        ],
        transactions: [
          txn('bt_9', '2025-02-01', 500, { ...reconciled, currency: 'USD' }),
          txn('bt_1', '2025-02-02', 400, reconciled),
        ],
        links: [
          link('lnk_x2', 'bt_1', 'le_x', 50),
          link('lnk_x1', 'bt_9', 'le_x', 50),
          link('lnk_r2', 'bt_9', 'le_rev', 50),
          link('lnk_r1', 'bt_1', 'le_rev', 50),
          link('lnk_o2', 'bt_9', 'le_1', 100),
          link('lnk_o1', 'bt_1', 'le_1', 100),
        ],
      });
      expect(result.outcome).to.equal('blocked');
      expect(result.blockers).to.deep.equal([
        { code: 'currency_mismatch', ids: ['bt_9', 'le_9'] },
        { code: 'frozen_link_to_reversed_entry', ids: ['lnk_r1', 'lnk_r2'] },
        { code: 'frozen_link_to_other_counterparty', ids: ['lnk_x1', 'lnk_x2'] },
        { code: 'frozen_over_allocation', ids: ['le_1'] },
      ]);
    });

    it('stages a plan of exactly {bank_account_id, counterparty_id, as_of, actions, summary} whose plan_hash is planHash(plan)', () => {
      const result = repair({
        entries: [receivable('le_1', '2025-01-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 100)],
      });
      if (result.outcome !== 'staged') expect.fail(`expected staged, got ${result.outcome}`);
      expect(Object.keys(result.plan)).to.deep.equal([
        'bank_account_id',
        'counterparty_id',
        'as_of',
        'actions',
        'summary',
      ]);
      expect(result.plan_hash).to.match(/^[0-9a-f]{64}$/);
      expect(result.plan_hash).to.equal(planHash(result.plan));
      expect(result.blockers).to.deep.equal([]);
    });

    it('locks the repair subject key and every entry and transaction named in the actions, and lists what it read as preconditions', () => {
      const result = repair({
        entries: [
          receivable('le_1', '2025-01-10', 100),
          receivable('le_2', '2025-02-10', 100, { version: 4 }),
          receivable('le_after', '2025-08-01', 100),
          receivable('le_x', '2025-01-01', 100, { counterparty_id: 'cp_2', version: 2 }),
          receivable('le_unrelated', '2025-01-01', 100, { counterparty_id: 'cp_3' }),
        ],
        transactions: [
          txn('bt_2', '2025-03-02', 100, { version: 5 }),
          txn('bt_1', '2025-03-01', 100),
          txn('bt_after', '2025-07-01', 10),
        ],
        links: [
          link('lnk_1', 'bt_1', 'le_x', 100),
          link('lnk_2', 'bt_2', 'le_2', 100),
          link('lnk_far', 'bt_far', 'le_unrelated', 5),
        ],
      });
      if (result.outcome !== 'staged') expect.fail(`expected staged, got ${result.outcome}`);
      expect(result.plan.actions).to.deep.equal([move('bt_1', 'lnk_1', 'le_x', 'le_1', 100)]);
      expect(result.locks).to.deep.equal({
        subject_key: 'repair:ba_main:cp_1',
        entry_ids: ['le_1', 'le_x'],
        transaction_ids: ['bt_1'],
      });
      expect(result.preconditions).to.deep.equal([
        { collection: 'bank_accounts', id: 'ba_main', version: 3 },
        { collection: 'bank_links', id: 'lnk_1', version: 1 },
        { collection: 'bank_links', id: 'lnk_2', version: 1 },
        { collection: 'bank_transactions', id: 'bt_1', version: 1 },
        { collection: 'bank_transactions', id: 'bt_2', version: 5 },
        { collection: 'bank_transactions', id: 'bt_after', version: 1 },
        { collection: 'ledger_entries', id: 'le_1', version: 1 },
        { collection: 'ledger_entries', id: 'le_2', version: 4 },
        { collection: 'ledger_entries', id: 'le_after', version: 1 },
        { collection: 'ledger_entries', id: 'le_x', version: 2 },
      ]);
    });

    it('refuses a link of an in-scope transaction to an entry the caller did not pass', () => {
      expect(() =>
        repair({
          entries: [receivable('le_1', '2025-01-10', 100)],
          transactions: [txn('bt_1', '2025-03-01', 100)],
          links: [link('lnk_1', 'bt_1', 'le_missing', 100)],
        }),
      ).to.throw(/le_missing/);
    });

    // A caller merging two reads may pass a stale copy that a fresher one
    // replaces (the higher version counts): only the copy that counts may be
    // refused, whether or not the records come in id order (the plan's fast
    // path for id-ordered input must not refuse earlier than the other).
    it('refuses an amount that is not a safe integer whether or not the records are in id order, and not on a copy a fresher one replaces', () => {
      const entries = [receivable('le_1', '2025-01-10', 100)];
      const bad = txn('bt_2', '2025-03-01', 0.5);
      const good = txn('bt_1', '2025-03-01', 100);
      expect(() => repair({ entries, transactions: [good, bad] })).to.throw(RangeError, /bt_2/);
      expect(() => repair({ entries, transactions: [bad, good] })).to.throw(RangeError, /bt_2/);
      const fresher = txn('bt_2', '2025-03-02', 100, { version: 2 });
      const result = repair({ entries, transactions: [good, bad, fresher] });
      expect(result.outcome).to.equal('staged');
      expect(result.plan!.actions).to.deep.equal([
        { kind: 'link', bank_transaction_id: 'bt_1', ledger_entry_id: 'le_1', amount_minor: 100 },
      ]);
      const unsafeEntry = receivable('le_0', '2025-01-01', 100, { lines: records.receivableLines(2 ** 53) });
      expect(() => repair({ entries: [unsafeEntry, ...entries], transactions: [good] })).to.throw(RangeError, /le_0/);
    });
  });
});

describe('allocateFifo', () => {
  it('allocates min(remaining amount, remaining capacity) to each pair and advances whichever is used up', () => {
    const result = allocateFifo(
      [
        { id: 't1', amount_minor: 60 },
        { id: 't2', amount_minor: 0 },
        { id: 't3', amount_minor: 90 },
        { id: 't4', amount_minor: 70 },
      ],
      [
        { id: 'e1', amount_minor: 100 },
        { id: 'e2', amount_minor: 0 },
        { id: 'e3', amount_minor: 100 },
      ],
    );
    expect(result).to.deep.equal({
      allocations: [
        { transaction_id: 't1', entry_id: 'e1', amount_minor: 60 },
        { transaction_id: 't3', entry_id: 'e1', amount_minor: 40 },
        { transaction_id: 't3', entry_id: 'e3', amount_minor: 50 },
        { transaction_id: 't4', entry_id: 'e3', amount_minor: 50 },
      ],
      transaction_remainders: [0, 0, 0, 20],
      entry_remainders: [0, 0, 0],
    });
  });

  it('refuses amounts that are not non-negative safe integers', () => {
    expect(() => allocateFifo([{ id: 't1', amount_minor: -1 }], [])).to.throw(RangeError, /t1/);
    expect(() => allocateFifo([], [{ id: 'e1', amount_minor: 1.5 }])).to.throw(RangeError, /e1/);
  });
});
