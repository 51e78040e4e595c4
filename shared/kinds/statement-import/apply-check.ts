// The staleness rule of a statement import's apply (docs/guide/statement-import.md
// "Apply"): a transaction that reached the account after the plan was staged
// with the bank reference of one of the plan's new transactions means the
// plan no longer says what it would add. Pure: the worker reads the account's
// references, this names the clashes.
import type { ChangedPrecondition, PeriodLocked } from '../../domain/preconditions.js';
import type { StatementImportPlan } from './plan.js';

/** The account's transactions carrying one of the plan's references (`expected_version: 0`: the plan expected none), other than the plan's own (a resumed journal's inserts); [] when the plan may be applied. */
export function bankReferenceClashes(
  plan: StatementImportPlan,
  onAccount: ReadonlyArray<{ id: string; version: number; bank_reference?: string | null | undefined }>,
): ChangedPrecondition[] {
  const planned = new Set(plan.new_transactions.map((t) => t.id));
  const references = new Set(
    plan.new_transactions.flatMap((t) => (t.bank_reference === null ? [] : [t.bank_reference])),
  );
  return onAccount
    .filter((t) => !planned.has(t.id) && typeof t.bank_reference === 'string' && references.has(t.bank_reference))
    .map((t) => ({
      collection: 'bank_transactions' as const,
      id: t.id,
      expected_version: 0,
      actual_version: t.version,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The plan's new transactions booked on or before the organisation's lock date, by id: an apply finding any
 * is stale (`stale_plan`, reason `period_locked`; docs/guide/statement-import.md "Apply"), since staging skipped
 * them only up to the lock date it saw.
 */
/** The import's `stale_plan` details when the lock date now covers one of its new transactions, else null. */
export function lockedImport(plan: StatementImportPlan, lockDate: string | null): PeriodLocked | null {
  const ids = lockedNewTransactions(plan, lockDate);
  return ids.length === 0 || lockDate === null
    ? null
    : { reason: 'period_locked', lock_date: lockDate, transaction_ids: ids };
}

export function lockedNewTransactions(plan: StatementImportPlan, lockDate: string | null): string[] {
  if (lockDate === null) return [];
  return plan.new_transactions
    .filter((t) => t.booking_date <= lockDate)
    .map((t) => t.id)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
