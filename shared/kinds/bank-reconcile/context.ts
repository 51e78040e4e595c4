// A reconciliation's context (docs/design/staged-lifecycle.md "Context"): the
// account, the transactions it reconciles and the entries their links point to,
// as the books stood when it was staged. Pure.
import type { BankAccount, BankTransaction, LedgerEntry } from '../../domain/books.js';
import { accountContext, entryContext, pick, transactionContext, type PlanContext } from '../../domain/plan-context.js';
import type { ReconciliationPlan } from './plan.js';

/** A reconciliation names its account, its transactions and the entries their links point to. */
export function reconcileContext(
  plan: ReconciliationPlan,
  books: { account: BankAccount | null; transactions: readonly BankTransaction[]; entries: readonly LedgerEntry[] },
  settlementAccounts: readonly string[],
): PlanContext {
  return {
    ...(books.account ? { bank_account: accountContext(books.account) } : {}),
    ledger_entries: pick(
      books.entries,
      plan.transactions.flatMap((t) => t.links.map((l) => l.ledger_entry_id)),
      (e) => entryContext(e, settlementAccounts),
    ),
    bank_transactions: pick(
      books.transactions,
      plan.transactions.map((t) => t.bank_transaction_id),
      transactionContext,
    ),
  };
}
