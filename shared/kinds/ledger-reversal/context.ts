// A reversal's context (docs/design/staged-lifecycle.md "Context"): the entry it
// reverses and the transactions of the links it removes, as the books stood
// when it was staged. Pure.
import type { BankTransaction, LedgerEntry } from '../../domain/books.js';
import { entryContext, pick, transactionContext, type PlanContext } from '../../domain/plan-context.js';
import type { ReversalPlan } from './plan.js';

/** A reversal names its entry and the transactions of the links it removes. */
export function reversalContext(
  plan: ReversalPlan,
  books: { entry: LedgerEntry | null; transactions: readonly BankTransaction[] },
  settlementAccounts: readonly string[],
): PlanContext {
  return {
    ledger_entries: pick(books.entry ? [books.entry] : [], [plan.ledger_entry_id], (e) =>
      entryContext(e, settlementAccounts),
    ),
    bank_transactions: pick(
      books.transactions,
      plan.actions.map((a) => a.bank_transaction_id),
      transactionContext,
    ),
  };
}
