// What applying a statement import writes (docs/design/staged-lifecycle.md
// "Apply"): a function of its plan alone, so the operation stores no copy of
// it. Pure.
import { ok } from '../../domain/result.js';
import type { JournalWrite, KindJournal } from '../../domain/apply-journal.js';
import type { StatementImportPlan } from './plan.js';

export const statementImportKindJournal: KindJournal = {
  plan: (plan) => ok({ writes: statementImportJournal(plan as StatementImportPlan), links: null }),
  fromPlan: (plan) => statementImportJournal(plan as StatementImportPlan),
};

/**
 * A statement import's journal (docs/guide/statement-import.md "Apply"): one insert
 * per new transaction, under the plan's deterministic id, unreconciled at
 * version 1 (or the plan's version of a transaction that returns after a revert). A unique `_id` insert settles a retry: the id already there with
 * these fields is this journal's own write.
 */
export function statementImportJournal(plan: StatementImportPlan): JournalWrite[] {
  return plan.new_transactions.map((t) => ({
    action: 'insert',
    collection: 'bank_transactions',
    id: t.id,
    doc: {
      bank_account_id: plan.bank_account_id,
      booking_date: t.booking_date,
      value_date: t.value_date,
      amount_minor: t.amount_minor,
      currency: t.currency,
      counterparty_id: t.counterparty_id,
      counterparty_name: t.counterparty_name ?? '',
      counterparty_iban: t.counterparty_iban,
      remittance_info: t.remittance_info ?? '',
      bank_reference: t.bank_reference,
      status: 'unreconciled',
      reconciliation_id: null,
      version: t.version ?? 1,
    },
  }));
}
