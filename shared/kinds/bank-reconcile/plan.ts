// Bank reconciliation (docs/reference/http-api.md §7, plan shape §13.2.1): the checks, in their
// contractual order, and the plan a bookkeeper approves. Pure: the worker
// loads the books and the pending locks, this decides.
import type { BankAccount, BankLink, BankTransaction, IsoDate, Org, Precondition } from '../../domain/books.js';
import { compareIds, sumMinor } from '../../domain/books.js';
import { isSafeMinor, minorOut } from '../../domain/minor-units.js';
import { planHash } from '../../domain/plan-hash.js';
import { refused, type Decision, type RefusedDecision, type StagedDecision } from '../../domain/decision.js';
import { warning, type Warning } from '../../warnings.js';
import type { PendingHolder } from '../../domain/pending-gate.js';
import { decideWithPending } from '../../domain/pending-gate.js';
import { inClosedPeriod, type PeriodLocked } from '../../domain/preconditions.js';

/** How many left-out transaction ids the plan and the warning name. */
export const LEFT_OUT_SAMPLE_SIZE = 10;

export interface ReconciliationRequest {
  bank_account_id: string;
  statement: {
    end_date: IsoDate;
    closing_balance_minor: number;
    currency: string;
    /** Absent or null when the statement has none; the plan then says null. */
    reference?: string | null;
  };
  /** Unique per the request schema; a repeated id is still counted once here. */
  transaction_ids: string[];
  /**
   * Not part of the plan (docs/reference/http-api.md §13.2.1 gives the plan no note): it is kept in
   * the staged operation's `input`, so the same statement staged with another
   * note is the same plan with the same plan_hash.
   */
  note?: string | null;
}

export interface ReconciliationBooks {
  org: Org;
  /** null when the account does not exist in this organisation. */
  account: BankAccount | null;
  /** The requested ids that exist in this organisation, of any account. */
  transactions: BankTransaction[];
  /** The bank links of those transactions. */
  links: BankLink[];
  /**
   * This account's unreconciled transactions with booking_date ≤ end_date, the
   * requested ones included or not (they are subtracted here). Only `id` and
   * `booking_date` are read, so the caller may load a projection.
   */
  unreconciled_up_to_end: Array<Pick<BankTransaction, 'id' | 'booking_date'>>;
  /** Pending operations holding the account's reconcile subject key or any requested transaction. */
  pending: PendingHolder[];
}

export interface ReconciliationPlanLink {
  link_id: string;
  ledger_entry_id: string;
  amount_minor: number;
}

export interface ReconciliationPlanTransaction {
  bank_transaction_id: string;
  booking_date: IsoDate;
  amount_minor: number;
  /** By link id. */
  links: ReconciliationPlanLink[];
}

export interface LeftOut {
  count: number;
  /** The first LEFT_OUT_SAMPLE_SIZE ids by (booking_date, id). */
  first_ids: string[];
}

export interface ReconciliationPlan {
  bank_account_id: string;
  statement: { end_date: IsoDate; closing_balance_minor: number; currency: string; reference: string | null };
  opening_balance_minor: number;
  cleared_total_minor: number;
  closing_balance_minor: number;
  /** By (booking_date, id). */
  transactions: ReconciliationPlanTransaction[];
  left_out: LeftOut;
}

export type ReconciliationDecision = Decision<ReconciliationPlan>;

type Staged = StagedDecision<ReconciliationPlan>;

export function reconcileSubjectKey(bankAccountId: string): string {
  return `reconcile:${bankAccountId}`;
}

/**
 * The `left_out_unreconciled` warning of a plan ([] when nothing is left out).
 * Exported so that an `existing` answer can carry the warning of the pending
 * operation's plan.
 */
export function leftOutWarnings(
  plan: Pick<ReconciliationPlan, 'bank_account_id' | 'statement' | 'left_out'>,
): Warning[] {
  const { count, first_ids } = plan.left_out;
  if (count === 0) return [];
  return [
    warning(
      'left_out_unreconciled',
      { count, first_ids: [...first_ids] },
      { count, bank_account_id: plan.bank_account_id, end_date: plan.statement.end_date },
    ),
  ];
}

/**
 * Decide a reconciliation. Checks run in the order of docs/reference/http-api.md §7 and the
 * first failing one is answered.
 *
 * Pending operations are checked after `transaction_after_statement_end` and
 * before `unmatched_transactions`. Every check before that point is a
 * permanent fact that no pending operation can undo when applied (accounts,
 * currencies and booking dates do not change; `reconciled_through` and a
 * transaction's `reconciled` status only move forward; no staged operation
 * moves the lock date), so its answer is final
 * and is given even while something is pending. The two checks after it are
 * exactly what a pending operation changes: a repair or reversal rewrites
 * links, a pending reconciliation of this account moves the opening balance.
 * So with a pending holder those become `pending_operation` (retryable), and
 * the very same plan already pending for the same subject is `existing`.
 */
export function decideReconciliation(
  books: ReconciliationBooks,
  request: ReconciliationRequest,
): ReconciliationDecision {
  const { account } = books;
  const { statement } = request;
  if (!account || account.id !== request.bank_account_id) {
    return refused('not_found', { resource: 'Bank account', id: request.bank_account_id });
  }
  if (statement.currency !== account.currency) {
    return refused('currency_mismatch', { account_currency: account.currency, statement_currency: statement.currency });
  }
  if (account.reconciled_through !== null && statement.end_date < account.reconciled_through.date) {
    return refused('statement_before_last_reconciliation', {
      end_date: statement.end_date,
      reconciled_through_date: account.reconciled_through.date,
    });
  }

  // The statement's end is what the reconciliation dates (the account's `reconciled_through`); its transactions
  // may lie in a closed period: reconciling them is a status change (docs/design/staged-lifecycle.md "Closed periods").
  if (inClosedPeriod(statement.end_date, books.org.lock_date)) {
    return refused('period_locked', { end_date: statement.end_date, lock_date: books.org.lock_date });
  }

  const requestedIds = [...new Set(request.transaction_ids)].sort(compareIds);
  const ownById = new Map<string, BankTransaction>();
  for (const t of books.transactions) if (t.bank_account_id === account.id) ownById.set(t.id, t);

  const unknown = requestedIds.filter((id) => !ownById.has(id));
  if (unknown.length > 0) return refused('unknown_transactions', { transaction_ids: unknown });

  const requested = requestedIds.map((id) => ownById.get(id)!);
  // The statement's currency is the account's (checked above); each transaction must be in it too.
  const foreign = requested.filter((t) => t.currency !== account.currency).map((t) => t.id);
  if (foreign.length > 0)
    return refused('currency_mismatch', { account_currency: account.currency, transaction_ids: foreign });
  const reconciled = requested.filter((t) => t.status === 'reconciled').map((t) => t.id);
  if (reconciled.length > 0) return refused('already_reconciled', { transaction_ids: reconciled });

  const late = requested.filter((t) => t.booking_date > statement.end_date).map((t) => t.id);
  if (late.length > 0) return refused('transaction_after_statement_end', { transaction_ids: late });

  const planned = planAfterPending(books, account, request, requested);
  return decideWithPending(books.pending, planned);
}

function planAfterPending(
  books: ReconciliationBooks,
  account: BankAccount,
  request: ReconciliationRequest,
  /** This account's requested transactions, unique, sorted by id. */
  requested: BankTransaction[],
): Staged | RefusedDecision {
  const { statement } = request;
  const requestedIds = new Set(requested.map((t) => t.id));

  // Links by transaction, each link once, by link id.
  const linkById = new Map<string, BankLink>();
  for (const l of books.links) if (requestedIds.has(l.bank_transaction_id)) linkById.set(l.id, l);
  const linksOf = new Map<string, BankLink[]>();
  for (const l of [...linkById.values()].sort((a, b) => compareIds(a.id, b.id))) {
    const list = linksOf.get(l.bank_transaction_id);
    if (list) list.push(l);
    else linksOf.set(l.bank_transaction_id, [l]);
  }

  // Sums in BigInt: every amount is a safe integer, but a sum of them need not be (docs/reference/http-api.md §7).
  const unmatched = requested
    .map((t) => ({
      bank_transaction_id: t.id,
      remainder_minor: abs(BigInt(t.amount_minor)) - sumMinor((linksOf.get(t.id) ?? []).map((l) => l.amount_minor)),
    }))
    .filter((u) => u.remainder_minor !== 0n)
    .map((u) => ({ bank_transaction_id: u.bank_transaction_id, remainder_minor: minorOut(u.remainder_minor) }));
  if (unmatched.length > 0) return refused('unmatched_transactions', { transactions: unmatched });

  const openingMinor = account.reconciled_through?.balance_minor ?? account.opening_balance_minor;
  const cleared = sumMinor(requested.map((t) => t.amount_minor));
  const expectedClosing = BigInt(openingMinor) + cleared;
  const closing = BigInt(statement.closing_balance_minor);
  if (expectedClosing !== closing) {
    return refused('out_of_balance', {
      expected_closing_minor: minorOut(expectedClosing),
      difference_minor: minorOut(closing - expectedClosing),
    });
  }
  // Balanced, so cleared = closing − opening, both safe integers; the plan stores it as a number only when that is exact.
  if (!isSafeMinor(cleared)) {
    return refused('amount_out_of_range', {
      field: 'cleared_total_minor',
      value_minor: cleared.toString(),
      max_minor: Number.MAX_SAFE_INTEGER,
    });
  }
  const clearedMinor = Number(cleared);

  const ordered = [...requested].sort(byBookingDateThenId);
  const plan: ReconciliationPlan = {
    bank_account_id: account.id,
    statement: {
      end_date: statement.end_date,
      closing_balance_minor: statement.closing_balance_minor,
      currency: statement.currency,
      reference: statement.reference ?? null,
    },
    opening_balance_minor: openingMinor,
    cleared_total_minor: clearedMinor,
    closing_balance_minor: statement.closing_balance_minor,
    transactions: ordered.map((t) => ({
      bank_transaction_id: t.id,
      booking_date: t.booking_date,
      amount_minor: t.amount_minor,
      links: (linksOf.get(t.id) ?? []).map((l) => ({
        link_id: l.id,
        ledger_entry_id: l.ledger_entry_id,
        amount_minor: l.amount_minor,
      })),
    })),
    left_out: leftOut(books.unreconciled_up_to_end, requestedIds, statement.end_date),
  };

  // Left-out transactions are not preconditions: they change only the
  // warning, never what applying the plan writes.
  const preconditions: Precondition[] = [
    { collection: 'orgs', id: books.org.id, version: books.org.version },
    { collection: 'bank_accounts', id: account.id, version: account.version },
    ...ordered.map((t): Precondition => ({ collection: 'bank_transactions', id: t.id, version: t.version })),
    ...ordered.flatMap((t) =>
      (linksOf.get(t.id) ?? []).map((l): Precondition => ({ collection: 'bank_links', id: l.id, version: l.version })),
    ),
  ];

  return {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: { subject_key: reconcileSubjectKey(account.id), entry_ids: [], transaction_ids: requested.map((t) => t.id) },
    preconditions,
    warnings: leftOutWarnings(plan),
  };
}

/**
 * Apply's lock-date check (docs/design/staged-lifecycle.md "Closed periods"): the `stale_plan` details when the
 * lock date now covers the statement's end, which staging found open; else null.
 */
export function lockedReconciliation(
  plan: Pick<ReconciliationPlan, 'bank_account_id' | 'statement'>,
  lockDate: IsoDate | null,
): PeriodLocked | null {
  if (lockDate === null || !inClosedPeriod(plan.statement.end_date, lockDate)) return null;
  return {
    reason: 'period_locked',
    lock_date: lockDate,
    bank_account_id: plan.bank_account_id,
    end_date: plan.statement.end_date,
  };
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

function leftOut(
  candidates: ReadonlyArray<Pick<BankTransaction, 'id' | 'booking_date'>>,
  requestedIds: ReadonlySet<string>,
  endDate: IsoDate,
): LeftOut {
  const byId = new Map<string, Pick<BankTransaction, 'id' | 'booking_date'>>();
  for (const t of candidates) if (!requestedIds.has(t.id) && t.booking_date <= endDate) byId.set(t.id, t);
  const sorted = [...byId.values()].sort(byBookingDateThenId);
  return { count: sorted.length, first_ids: sorted.slice(0, LEFT_OUT_SAMPLE_SIZE).map((t) => t.id) };
}

function byBookingDateThenId(
  a: Pick<BankTransaction, 'id' | 'booking_date'>,
  b: Pick<BankTransaction, 'id' | 'booking_date'>,
): number {
  return compareIds(a.booking_date, b.booking_date) || compareIds(a.id, b.id);
}
