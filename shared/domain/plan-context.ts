// The context beside a plan (docs/design/staged-lifecycle.md "Context"): the
// records a plan names, as the books stood when it was staged, so a reviewer
// can check the plan without looking each id up. Read at staging time and
// kept outside the plan and its plan_hash. Pure: the worker passes the
// records its job already read (or read by `_id`); this picks and shapes.
import type { BankAccount, BankLink, BankTransaction, InboxDocument, IsoDate, LedgerEntry } from './books.js';
import { compareIds, openAmountMinor } from './books.js';
import type { LinkRepairPlan, RepairAction } from './link-repair-plan.js';
import type { ReconciliationPlan } from './reconcile-checks.js';
import type { ReversalPlan } from './reversal-plan.js';

export interface EntryContext {
  id: string;
  entry_date: IsoDate;
  reference: string;
  description: string;
  counterparty_id: string;
  currency: string;
  /** Σ(debit − credit) on the organisation's settlement accounts (the book reads' figure). */
  open_amount_minor: number;
}

export interface TransactionContext {
  id: string;
  booking_date: IsoDate;
  amount_minor: number;
  currency: string;
  counterparty_name: string;
  remittance_info: string;
}

export interface DocumentContext {
  id: string;
  received_at: string;
  file: { name: string; mime: string; size: number };
  extracted: InboxDocument['extracted'];
}

export interface AccountContext {
  id: string;
  name: string;
  currency: string;
}

/**
 * Why FIFO chose a repair action's target: the entry whose open amount the
 * action changes (a link's or unlink's entry, a move's `to` entry), its
 * position among the counterparty's open entries of the same direction
 * (receivables or payables, oldest first by entry date then id: the FIFO
 * queue), and what it leaves open beyond its links before and after the
 * action (actions taken in plan order).
 */
export interface RepairActionContext {
  /** Index into `plan.actions`. */
  action_index: number;
  ledger_entry_id: string;
  /** 1-based; null when the entry is not in the FIFO queue (reversed, another counterparty, after as_of). */
  fifo_position: number | null;
  /** How many entries that queue holds. */
  fifo_queue_length: number;
  open_before_minor: number;
  open_after_minor: number;
}

/**
 * The context of one plan; a kind fills the members it names (every array
 * sorted by id) and leaves the rest out, so `{}` is the context of a kind
 * that names nothing yet.
 */
export interface PlanContext {
  bank_account?: AccountContext;
  ledger_entries?: EntryContext[];
  bank_transactions?: TransactionContext[];
  inbox_documents?: DocumentContext[];
  /** A link repair: one per action, in action order. */
  repair_actions?: RepairActionContext[];
  /** A revert (docs/design/staged-lifecycle.md "Reverts"): the operation it reverts and that operation's amount. */
  reverted?: RevertedContext;
}

export interface RevertedContext {
  staged_operation_id: string;
  kind: string;
  amount_minor: number;
  currency: string;
}

export const accountContext = (a: BankAccount): AccountContext => ({ id: a.id, name: a.name, currency: a.currency });

export const entryContext = (e: LedgerEntry, settlementAccounts: readonly string[]): EntryContext => ({
  id: e.id,
  entry_date: e.entry_date,
  reference: e.reference,
  description: e.description,
  counterparty_id: e.counterparty_id,
  currency: e.currency,
  open_amount_minor: openAmountMinor(e, settlementAccounts),
});

export const transactionContext = (t: BankTransaction): TransactionContext => ({
  id: t.id,
  booking_date: t.booking_date,
  amount_minor: t.amount_minor,
  currency: t.currency,
  counterparty_name: t.counterparty_name,
  remittance_info: t.remittance_info,
});

export const documentContext = (d: InboxDocument): DocumentContext => ({
  id: d.id,
  received_at: d.received_at,
  file: { name: d.file.name, mime: d.file.mime, size: d.file.size },
  extracted: { ...d.extracted },
});

/** The records with these ids, once each (the highest version of a repeated id), sorted by id; ids not passed are left out. */
function pick<T extends { id: string; version?: number }, C>(
  records: readonly T[],
  ids: Iterable<string>,
  shape: (r: T) => C,
): C[] {
  const wanted = new Set(ids);
  const found = new Map<string, T>();
  for (const r of records) {
    if (!wanted.has(r.id)) continue;
    const seen = found.get(r.id);
    if (!seen || (r.version ?? 0) > (seen.version ?? 0)) found.set(r.id, r);
  }
  return [...found.keys()].sort(compareIds).map((id) => shape(found.get(id)!));
}

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

/** The entries a repair action names: a move's both ends, a link's or unlink's entry. */
function actionEntries(a: RepairAction): string[] {
  return a.kind === 'move' ? [a.from_ledger_entry_id, a.to_ledger_entry_id] : [a.ledger_entry_id];
}

/**
 * A repair names its account, the transactions and entries of its actions,
 * and says for each action why FIFO chose its target (RepairActionContext).
 * `books` are the records the repair read (shared/domain/link-repair-plan.ts
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
      !e.reversal_of &&
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

/** A plan that names only documents (a kind of the inbox): their details, sorted by id. */
export function documentsContext(documents: readonly InboxDocument[], ids: Iterable<string>): PlanContext {
  return { inbox_documents: pick(documents, ids, documentContext) };
}
