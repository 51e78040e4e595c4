// Ledger entry reversal (docs/reference/http-api.md §9): the checks, in their contractual order,
// and the plan a bookkeeper approves. Pure: the worker loads the books and the
// pending locks, this decides.
import type {
  BankLink,
  BankTransaction,
  IsoDate,
  LedgerEntry,
  LedgerLine,
  Org,
  Precondition,
} from '../../domain/books.js';
import { compareIds } from '../../domain/books.js';
import { planHash } from '../../domain/plan-hash.js';
import { refused, type Decision, type StagedDecision } from '../../domain/decision.js';
import type { PendingHolder } from '../../domain/pending-gate.js';
import { decideWithPending } from '../../domain/pending-gate.js';
import { inClosedPeriod, type PeriodLocked } from '../../domain/preconditions.js';

export interface ReversalRequest {
  entry_id: string;
  reversal_date: IsoDate;
  reason: string | null;
}

export interface ReversalBooks {
  org: Org;
  /** null when the entry does not exist in this organisation. */
  entry: LedgerEntry | null;
  /** The entry's bank links. */
  links: BankLink[];
  /** The transactions of those links. */
  transactions: BankTransaction[];
  /** Pending operations holding the entry (or its transactions). */
  pending: PendingHolder[];
}

export interface UnlinkAction {
  kind: 'unlink';
  bank_transaction_id: string;
  link_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export interface ReversalPlan {
  ledger_entry_id: string;
  reversal_date: IsoDate;
  reason: string | null;
  reversing_entry: {
    entry_date: IsoDate;
    description: string;
    reference: string;
    counterparty_id: string;
    currency: string;
    lines: LedgerLine[];
    reversal_of: string;
  };
  actions: UnlinkAction[];
}

export type ReversalDecision = Decision<ReversalPlan>;

export function reversalSubjectKey(entryId: string): string {
  return `reverse:${entryId}`;
}

/**
 * Decide a reversal. Checks run in the order of docs/reference/http-api.md §9 and the first
 * failing one is answered. A pending operation that holds the very same plan
 * for the same subject is not a conflict: it is returned as `existing`.
 */
export function decideReversal(books: ReversalBooks, request: ReversalRequest): ReversalDecision {
  const { entry, org } = books;
  if (!entry) return refused('not_found', { resource: 'Ledger entry', id: request.entry_id });
  if (entry.status === 'reversed' || entry.reversed_by) {
    return refused('already_reversed', { ledger_entry_id: entry.id, reversed_by: entry.reversed_by });
  }
  if (entry.reversal_of) {
    return refused('entry_is_reversal', { ledger_entry_id: entry.id, reversal_of: entry.reversal_of });
  }

  // Everything after the pending check only matters for comparing plans: a
  // pending holder turns any later failure into `pending_operation`.
  const planned = planAfterPending(books, entry, org, request);
  return decideWithPending(books.pending, planned);
}

function planAfterPending(
  books: ReversalBooks,
  entry: LedgerEntry,
  org: Org,
  request: ReversalRequest,
): StagedDecision<ReversalPlan> | ReturnType<typeof refused> {
  if (request.reversal_date < entry.entry_date) {
    return refused('reversal_before_entry', { reversal_date: request.reversal_date, entry_date: entry.entry_date });
  }
  // The entry itself may lie in a closed period: marking it reversed is a status change; the reversing entry
  // is what is booked (docs/design/staged-lifecycle.md "Closed periods").
  if (inClosedPeriod(request.reversal_date, org.lock_date)) {
    return refused('period_locked', { reversal_date: request.reversal_date, lock_date: org.lock_date });
  }

  const links = books.links.filter((l) => l.ledger_entry_id === entry.id).sort((a, b) => compareIds(a.id, b.id));
  const txnById = new Map(books.transactions.map((t) => [t.id, t]));
  const reconciledLinks = links.filter((l) => txnById.get(l.bank_transaction_id)?.status === 'reconciled');
  if (reconciledLinks.length > 0) {
    const transactionIds = [...new Set(reconciledLinks.map((l) => l.bank_transaction_id))].sort(compareIds);
    return refused('reconciled_links', { link_ids: reconciledLinks.map((l) => l.id), transaction_ids: transactionIds });
  }

  const plan: ReversalPlan = {
    ledger_entry_id: entry.id,
    reversal_date: request.reversal_date,
    reason: request.reason,
    reversing_entry: {
      entry_date: request.reversal_date,
      description: `Reversal of ${entry.id}`,
      reference: entry.reference,
      counterparty_id: entry.counterparty_id,
      currency: entry.currency,
      lines: entry.lines.map((line) => ({
        account: line.account,
        debit_minor: line.credit_minor,
        credit_minor: line.debit_minor,
      })),
      reversal_of: entry.id,
    },
    actions: links.map((l) => ({
      kind: 'unlink',
      bank_transaction_id: l.bank_transaction_id,
      link_id: l.id,
      ledger_entry_id: entry.id,
      amount_minor: l.amount_minor,
    })),
  };
  const transactionIds = [...new Set(links.map((l) => l.bank_transaction_id))].sort(compareIds);
  const preconditions: Precondition[] = [
    { collection: 'orgs', id: org.id, version: org.version },
    { collection: 'ledger_entries', id: entry.id, version: entry.version },
    ...links.map((l): Precondition => ({ collection: 'bank_links', id: l.id, version: l.version })),
    ...transactionIds.map((id): Precondition => ({
      collection: 'bank_transactions',
      id,
      version: txnById.get(id)?.version ?? 0,
    })),
  ];
  return {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: { subject_key: reversalSubjectKey(entry.id), entry_ids: [entry.id], transaction_ids: transactionIds },
    preconditions,
    warnings: [],
  };
}

/**
 * Apply's lock-date check (docs/design/staged-lifecycle.md "Closed periods"): the `stale_plan` details when the
 * lock date now covers the reversing entry's date, which staging found open; else null.
 */
export function lockedReversal(
  plan: Pick<ReversalPlan, 'ledger_entry_id' | 'reversal_date'>,
  lockDate: IsoDate | null,
): PeriodLocked | null {
  if (lockDate === null || !inClosedPeriod(plan.reversal_date, lockDate)) return null;
  return {
    reason: 'period_locked',
    lock_date: lockDate,
    ledger_entry_id: plan.ledger_entry_id,
    reversal_date: plan.reversal_date,
  };
}
