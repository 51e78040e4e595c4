// A link repair's context (docs/design/staged-lifecycle.md "Context"): its
// account, the transactions and entries of its actions, and why FIFO chose each
// action's target, as the books stood when it was staged. Pure.
import type { BankAccount, BankLink, BankTransaction, LedgerEntry } from '../../domain/books.js';
import { compareIds, isReversalEntry, openAmountMinor } from '../../domain/books.js';
import {
  accountContext,
  entryContext,
  pick,
  transactionContext,
  type PlanContext,
  type RepairActionContext,
} from '../../domain/plan-context.js';
import type { LinkRepairPlan, RepairAction } from './plan.js';

/** The entries a repair action names: a move's both ends, a link's or unlink's entry. */
function actionEntries(a: RepairAction): string[] {
  return a.kind === 'move' ? [a.from_ledger_entry_id, a.to_ledger_entry_id] : [a.ledger_entry_id];
}

/**
 * A repair names its account, the transactions and entries of its actions,
 * and says for each action why FIFO chose its target (RepairActionContext).
 * `books` are the records the repair read (shared/kinds/ledger-link-repair/plan.ts
 * LinkRepairInput): the FIFO queue is rebuilt from them by the plan's own
 * rule (counterparty, posted, neither reversed nor a reversal, dated on or
 * before as_of, a non-zero open amount).
 */
export function repairContext(
  plan: LinkRepairPlan,
  books: {
    account: BankAccount;
    entries: readonly LedgerEntry[];
    transactions: readonly BankTransaction[];
    links: readonly BankLink[];
  },
  settlementAccounts: readonly string[],
): PlanContext {
  const named = new Set<string>();
  for (const a of plan.actions) for (const id of actionEntries(a)) named.add(id);
  const ledgerEntries = pick(books.entries, named, (e) => entryContext(e, settlementAccounts));
  const bankTransactions = pick(
    books.transactions,
    plan.actions.map((a) => a.bank_transaction_id),
    transactionContext,
  );

  // The FIFO queues of the counterparty: receivables and payables apart, oldest first.
  const entries = pick(
    books.entries,
    books.entries.map((e) => e.id),
    (e) => e,
  );
  const queued = entries.filter(
    (e) =>
      e.counterparty_id === plan.counterparty_id &&
      e.status === 'posted' &&
      !e.reversed_by &&
      !isReversalEntry(e) &&
      e.entry_date <= plan.as_of &&
      openAmountMinor(e, settlementAccounts) !== 0,
  );
  const byAge = (a: LedgerEntry, b: LedgerEntry) => compareIds(a.entry_date, b.entry_date) || compareIds(a.id, b.id);
  const receivables = queued.filter((e) => openAmountMinor(e, settlementAccounts) > 0).sort(byAge);
  const payables = queued.filter((e) => openAmountMinor(e, settlementAccounts) < 0).sort(byAge);
  const position = new Map<string, { at: number; of: number }>();
  for (const queue of [receivables, payables])
    queue.forEach((e, i) => position.set(e.id, { at: i + 1, of: queue.length }));

  // What each named entry leaves open beyond its links, before the plan; then action by action.
  const left = new Map<string, number>();
  const byId = new Map(entries.map((e) => [e.id, e]));
  const linkSeen = new Set<string>();
  for (const id of named) {
    const e = byId.get(id);
    left.set(id, e ? Math.abs(openAmountMinor(e, settlementAccounts)) : 0);
  }
  for (const l of books.links) {
    if (linkSeen.has(l.id) || !left.has(l.ledger_entry_id)) continue;
    linkSeen.add(l.id);
    left.set(l.ledger_entry_id, left.get(l.ledger_entry_id)! - l.amount_minor);
  }
  const repairActions = plan.actions.map((a, i): RepairActionContext => {
    const target = a.kind === 'move' ? a.to_ledger_entry_id : a.ledger_entry_id;
    const before = left.get(target)!;
    const after = a.kind === 'unlink' ? before + a.amount_minor : before - a.amount_minor;
    left.set(target, after);
    if (a.kind === 'move') left.set(a.from_ledger_entry_id, left.get(a.from_ledger_entry_id)! + a.amount_minor);
    const queue = position.get(target);
    const direction = byId.get(target) ? openAmountMinor(byId.get(target)!, settlementAccounts) : 0;
    return {
      action_index: i,
      ledger_entry_id: target,
      fifo_position: queue?.at ?? null,
      fifo_queue_length: queue?.of ?? (direction < 0 ? payables.length : receivables.length),
      open_before_minor: before,
      open_after_minor: after,
    };
  });
  return {
    bank_account: accountContext(books.account),
    ledger_entries: ledgerEntries,
    bank_transactions: bankTransactions,
    repair_actions: repairActions,
  };
}
