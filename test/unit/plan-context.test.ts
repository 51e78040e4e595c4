// docs/design/staged-lifecycle.md "Context": the records a plan names, shaped
// from the books its job read, and for a repair why FIFO chose each target.
import { expect } from 'chai';
import type { BankLink, BankTransaction, LedgerEntry } from '../../shared/domain/books.js';
import { planLinkRepair, type LinkRepairPlan } from '../../shared/kinds/ledger-link-repair/plan.js';
import { documentsContext } from '../../shared/domain/plan-context.js';
import { repairContext } from '../../shared/kinds/ledger-link-repair/context.js';
import { reversalContext } from '../../shared/kinds/ledger-reversal/context.js';
import { decideReversal } from '../../shared/kinds/ledger-reversal/plan.js';
import { reconcileContext } from '../../shared/kinds/bank-reconcile/context.js';
import type { ReconciliationPlan } from '../../shared/kinds/bank-reconcile/plan.js';
import * as records from '../helpers/records.js';

const SETTLEMENT = ['1400', '1600'];
const ACCOUNT = records.account();
const receivable = (id: string, date: string, amount: number, more: Partial<LedgerEntry> = {}) =>
  records.entry({ id, entry_date: date, lines: records.receivableLines(amount), ...more });
const payable = (id: string, date: string, amount: number) =>
  records.entry({ id, entry_date: date, lines: records.payableLines(amount) });
const txn = (id: string, date: string, amount: number) =>
  records.txn({
    id,
    booking_date: date,
    amount_minor: amount,
    counterparty_name: 'Customer One',
    remittance_info: `INV ${id}`,
  });
const link = (id: string, t: string, e: string, amount: number) =>
  records.link({ id, bank_transaction_id: t, ledger_entry_id: e, amount_minor: amount });

function plannedRepair(books: {
  entries: LedgerEntry[];
  transactions: BankTransaction[];
  links: BankLink[];
}): LinkRepairPlan {
  const result = planLinkRepair({
    account: ACCOUNT,
    counterparty_id: 'cp_1',
    as_of: '2025-06-30',
    settlement_accounts: SETTLEMENT,
    ...books,
  });
  expect(result.outcome).to.equal('staged');
  return result.plan!;
}

describe('plan context', () => {
  describe('a link repair', () => {
    it("names its account, the entries and transactions of its actions, and the FIFO position of a moved link's new entry", () => {
      const books = {
        entries: [
          receivable('le_1', '2025-01-10', 300),
          receivable('le_2', '2025-02-10', 500),
          payable('le_p', '2025-01-05', 70),
          receivable('le_other', '2025-01-01', 5),
        ],
        transactions: [txn('bt_1', '2025-03-01', 300)],
        links: [link('lnk_1', 'bt_1', 'le_2', 300)],
      };
      books.entries[3]!.counterparty_id = 'cp_2';
      const plan = plannedRepair(books);
      expect(plan.actions).to.deep.equal([
        {
          kind: 'move',
          bank_transaction_id: 'bt_1',
          link_id: 'lnk_1',
          from_ledger_entry_id: 'le_2',
          to_ledger_entry_id: 'le_1',
          amount_minor: 300,
        },
      ]);
      expect(repairContext(plan, { account: ACCOUNT, ...books }, SETTLEMENT)).to.deep.equal({
        bank_account: { id: 'ba_main', name: 'Main', currency: 'EUR' },
        ledger_entries: [
          {
            id: 'le_1',
            entry_date: '2025-01-10',
            reference: 'LE_1',
            description: 'Entry le_1',
            counterparty_id: 'cp_1',
            currency: 'EUR',
            open_amount_minor: 300,
          },
          {
            id: 'le_2',
            entry_date: '2025-02-10',
            reference: 'LE_2',
            description: 'Entry le_2',
            counterparty_id: 'cp_1',
            currency: 'EUR',
            open_amount_minor: 500,
          },
        ],
        bank_transactions: [
          {
            id: 'bt_1',
            booking_date: '2025-03-01',
            amount_minor: 300,
            currency: 'EUR',
            counterparty_name: 'Customer One',
            remittance_info: 'INV bt_1',
          },
        ],
        // The payable and the other counterparty's entry are not in the receivables' queue.
        repair_actions: [
          {
            action_index: 0,
            ledger_entry_id: 'le_1',
            fifo_position: 1,
            fifo_queue_length: 2,
            open_before_minor: 300,
            open_after_minor: 0,
          },
        ],
      });
    });

    it('takes the actions in plan order: the second link of one payment starts from what the first left', () => {
      const books = {
        entries: [receivable('le_1', '2025-01-10', 300), receivable('le_2', '2025-02-10', 500)],
        transactions: [txn('bt_1', '2025-03-01', 500)],
        links: [],
      };
      const plan = plannedRepair(books);
      expect(repairContext(plan, { account: ACCOUNT, ...books }, SETTLEMENT).repair_actions).to.deep.equal([
        {
          action_index: 0,
          ledger_entry_id: 'le_1',
          fifo_position: 1,
          fifo_queue_length: 2,
          open_before_minor: 300,
          open_after_minor: 0,
        },
        {
          action_index: 1,
          ledger_entry_id: 'le_2',
          fifo_position: 2,
          fifo_queue_length: 2,
          open_before_minor: 500,
          open_after_minor: 300,
        },
      ]);
    });

    it('counts the existing links in the open amount before, so a release of an over-linked entry goes from below zero back to zero', () => {
      const books = {
        entries: [receivable('le_1', '2025-01-10', 100)],
        transactions: [txn('bt_1', '2025-03-01', 150)],
        links: [link('lnk_1', 'bt_1', 'le_1', 120)],
      };
      const plan = plannedRepair(books);
      expect(repairContext(plan, { account: ACCOUNT, ...books }, SETTLEMENT).repair_actions).to.deep.equal([
        {
          action_index: 0,
          ledger_entry_id: 'le_1',
          fifo_position: 1,
          fifo_queue_length: 1,
          open_before_minor: -20,
          open_after_minor: 0,
        },
      ]);
    });

    it("gives no FIFO position to a released link's entry that is not in the queue (a reversed entry)", () => {
      const books = {
        entries: [receivable('le_r', '2025-01-10', 100, { status: 'reversed', reversed_by: 'le_x' })],
        transactions: [txn('bt_1', '2025-03-01', 100)],
        links: [link('lnk_1', 'bt_1', 'le_r', 100)],
      };
      const plan = plannedRepair(books);
      expect(repairContext(plan, { account: ACCOUNT, ...books }, SETTLEMENT).repair_actions).to.deep.equal([
        {
          action_index: 0,
          ledger_entry_id: 'le_r',
          fifo_position: null,
          fifo_queue_length: 0,
          open_before_minor: 0,
          open_after_minor: 100,
        },
      ]);
    });
  });

  it('a reversal names its entry and the transactions of the links it releases', () => {
    const entry = receivable('le_1', '2025-01-10', 300);
    const transactions = [txn('bt_2', '2025-03-02', 100), txn('bt_1', '2025-03-01', 200)];
    const links = [link('lnk_1', 'bt_1', 'le_1', 200), link('lnk_2', 'bt_2', 'le_1', 100)];
    const decision = decideReversal(
      { org: records.org(), entry, links, transactions, pending: [] },
      { entry_id: 'le_1', reversal_date: '2025-06-30', reason: null },
    );
    expect(decision.outcome).to.equal('staged');
    const plan = decision.outcome === 'staged' ? decision.plan : null;
    expect(reversalContext(plan!, { entry, transactions }, SETTLEMENT)).to.deep.equal({
      ledger_entries: [
        {
          id: 'le_1',
          entry_date: '2025-01-10',
          reference: 'LE_1',
          description: 'Entry le_1',
          counterparty_id: 'cp_1',
          currency: 'EUR',
          open_amount_minor: 300,
        },
      ],
      bank_transactions: [
        {
          id: 'bt_1',
          booking_date: '2025-03-01',
          amount_minor: 200,
          currency: 'EUR',
          counterparty_name: 'Customer One',
          remittance_info: 'INV bt_1',
        },
        {
          id: 'bt_2',
          booking_date: '2025-03-02',
          amount_minor: 100,
          currency: 'EUR',
          counterparty_name: 'Customer One',
          remittance_info: 'INV bt_2',
        },
      ],
    });
  });

  it('a reconciliation names its account, its transactions and the entries their links point to, nothing else it read', () => {
    const plan = {
      bank_account_id: 'ba_main',
      transactions: [
        {
          bank_transaction_id: 'bt_1',
          booking_date: '2025-03-01',
          amount_minor: 300,
          links: [{ link_id: 'lnk_1', ledger_entry_id: 'le_1', amount_minor: 300 }],
        },
      ],
    } as unknown as ReconciliationPlan;
    const context = reconcileContext(
      plan,
      {
        account: ACCOUNT,
        transactions: [txn('bt_1', '2025-03-01', 300), txn('bt_9', '2025-03-01', 1)],
        entries: [receivable('le_1', '2025-01-10', 300)],
      },
      SETTLEMENT,
    );
    expect(context).to.deep.equal({
      bank_account: { id: 'ba_main', name: 'Main', currency: 'EUR' },
      ledger_entries: [
        {
          id: 'le_1',
          entry_date: '2025-01-10',
          reference: 'LE_1',
          description: 'Entry le_1',
          counterparty_id: 'cp_1',
          currency: 'EUR',
          open_amount_minor: 300,
        },
      ],
      bank_transactions: [
        {
          id: 'bt_1',
          booking_date: '2025-03-01',
          amount_minor: 300,
          currency: 'EUR',
          counterparty_name: 'Customer One',
          remittance_info: 'INV bt_1',
        },
      ],
    });
  });

  it('a plan of documents names each with its file and extracted fields, by id, without the file hash or status', () => {
    const doc = (id: string) => ({
      id,
      received_at: '2025-03-01T08:00:00.000Z',
      source: 'email',
      status: 'open' as const,
      file: { sha256: 'ab'.repeat(32), name: `${id}.pdf`, size: 1234, mime: 'application/pdf' },
      extracted: { vendor_name: 'ACME', invoice_number: 'R-1', total_minor: 1190, currency: 'EUR' },
    });
    expect(documentsContext([doc('doc_b'), doc('doc_a'), doc('doc_c')], ['doc_b', 'doc_a'])).to.deep.equal({
      inbox_documents: ['doc_a', 'doc_b'].map((id) => ({
        id,
        received_at: '2025-03-01T08:00:00.000Z',
        file: { name: `${id}.pdf`, mime: 'application/pdf', size: 1234 },
        extracted: { vendor_name: 'ACME', invoice_number: 'R-1', total_minor: 1190, currency: 'EUR' },
      })),
    });
  });
});
