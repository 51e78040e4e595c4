// Closing a period (docs/design/staged-lifecycle.md "Closed periods"): the plan
// that moves the organisation's lock date to `through`, and the rule that
// decides whether it may be staged. Pure: the worker passes the organisation,
// the period's records and the pending operations the new lock would refuse.
import { compareIds, type IsoDate, type Org } from '../../domain/books.js';
import { refused, type Decision, type StagedDecision } from '../../domain/decision.js';
import { planHash } from '../../domain/plan-hash.js';
import { decideWithPending, type PendingHolder } from '../../domain/pending-gate.js';

export interface PeriodClosePlan {
  /** The new lock date: every day on or before it is closed. */
  through: IsoDate;
  /** The lock date when the close was staged (null: none). */
  lock_date_before: IsoDate | null;
  note: string | null;
  /** How many ledger entries and bank transactions are dated on or before `through` (when staged). */
  entries: number;
  bank_transactions: number;
}

export interface PeriodCloseRequest {
  through: IsoDate;
  note: string | null;
  /** The day the request was made (UTC): `through` must lie before it. */
  today: IsoDate;
}

export interface PeriodCloseBooks {
  org: Org;
  /** The dates of the organisation's entries and bank transactions (only how many lie in the period is used). */
  entry_dates: readonly IsoDate[];
  transaction_dates: readonly IsoDate[];
  /** Pending operations (staged, approved or applying) whose kind says the new lock would refuse them. */
  refused_by_lock: readonly string[];
  /** Holders of the period-close scope (another close pending); empty until the pending gate reads them. */
  pending: readonly PendingHolder[];
}

/** One pending close per organisation: the scope key every close claims (storage adds the org prefix). */
export const PERIOD_CLOSE_SCOPE_KEY = 'period-close';

/**
 * Checks in order: `through` after the lock date, `through` before today (422 `invalid_period`), no pending
 * operation the new lock would refuse (409 `pending_operation`), then the pending gate (another close pending).
 */
export function decidePeriodClose(books: PeriodCloseBooks, request: PeriodCloseRequest): Decision<PeriodClosePlan> {
  const { org } = books;
  const { through } = request;
  if (org.lock_date !== null && through <= org.lock_date)
    return refused('invalid_period', { reason: 'not_after_lock_date', through, lock_date: org.lock_date });
  if (through >= request.today)
    return refused('invalid_period', { reason: 'not_before_today', through, today: request.today });
  if (books.refused_by_lock.length > 0) {
    const ids = [...new Set(books.refused_by_lock)].sort(compareIds);
    return refused('pending_operation', { through, operation_ids: ids, staged_operation_ids: ids });
  }
  const plan: PeriodClosePlan = {
    through,
    lock_date_before: org.lock_date,
    note: request.note,
    entries: books.entry_dates.filter((d) => d <= through).length,
    bank_transactions: books.transaction_dates.filter((d) => d <= through).length,
  };
  const staged: StagedDecision<PeriodClosePlan> = {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: { subject_key: PERIOD_CLOSE_SCOPE_KEY, entry_ids: [], transaction_ids: [] },
    // Any change of the organisation (its lock date above all) makes the close stale.
    preconditions: [{ collection: 'orgs', id: org.id, version: org.version }],
    warnings: [],
  };
  return decideWithPending(books.pending, staged);
}
