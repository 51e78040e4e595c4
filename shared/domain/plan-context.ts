// The context beside a plan (docs/design/staged-lifecycle.md "Context"): the
// records a plan names, as the books stood when it was staged, so a reviewer
// can check the plan without looking each id up. Read at staging time and
// kept outside the plan and its plan_hash. Pure: the worker passes the
// records its job already read (or read by `_id`); this picks and shapes.
import type { BankAccount, BankTransaction, InboxDocument, IsoDate, LedgerEntry } from './books.js';
import { compareIds, openAmountMinor } from './books.js';

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
export function pick<T extends { id: string; version?: number }, C>(
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

/** A plan that names only documents (a kind of the inbox): their details, sorted by id. */
export function documentsContext(documents: readonly InboxDocument[], ids: Iterable<string>): PlanContext {
  return { inbox_documents: pick(documents, ids, documentContext) };
}
