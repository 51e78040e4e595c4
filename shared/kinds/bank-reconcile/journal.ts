// What applying a reconciliation writes (docs/design/staged-lifecycle.md "Apply"):
// each transaction reconciled with the operation's id, then the account's
// reconciled_through moved to the statement. Pure.
import {
  failed,
  withoutLinks,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
  type KindJournal,
} from '../../domain/apply-journal.js';
import { ok, type Result } from '../../domain/result.js';
import type { ReconciliationPlan } from './plan.js';

export const bankReconcileJournal: KindJournal = {
  plan: (plan, books, ctx) => withoutLinks(reconcileJournal(plan as ReconciliationPlan, books, ctx)),
};

function reconcileJournal(plan: ReconciliationPlan, books: ApplyBooks, ctx: JournalContext): Result<JournalWrite[]> {
  const txnById = new Map(books.transactions.map((t) => [t.id, t]));
  const account = books.accounts.find((a) => a.id === plan.bank_account_id);
  if (!account) return failed('bank_account_missing', { id: plan.bank_account_id });
  const writes: JournalWrite[] = [];
  for (const planned of plan.transactions) {
    const txn = txnById.get(planned.bank_transaction_id);
    if (!txn) return failed('bank_transaction_missing', { id: planned.bank_transaction_id });
    if (txn.status !== 'unreconciled') return failed('bank_transaction_already_reconciled', { id: txn.id });
    writes.push({
      action: 'update',
      collection: 'bank_transactions',
      id: txn.id,
      version: txn.version,
      set: { status: 'reconciled', reconciliation_id: ctx.staged_operation_id },
      before: { status: txn.status, reconciliation_id: txn.reconciliation_id },
    });
  }
  writes.push({
    action: 'update',
    collection: 'bank_accounts',
    id: account.id,
    version: account.version,
    set: { reconciled_through: { date: plan.statement.end_date, balance_minor: plan.closing_balance_minor } },
    before: { reconciled_through: account.reconciled_through },
  });
  return ok(writes);
}
