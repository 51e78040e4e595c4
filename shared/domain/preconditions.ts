// Staleness (docs/design/staged-lifecycle.md "Apply"): a plan may be applied only
// while every document it read still has the version it read, and while the
// organisation's lock date covers nothing it writes ("Closed periods"). Pure.
import type { IsoDate, Precondition } from './books.js';

/**
 * An apply's plan writes records that the organisation's lock date now covers: its `stale_plan` details
 * (docs/design/staged-lifecycle.md "Closed periods"). What is named depends on the kind: a statement
 * import's new transactions, a reconciliation's statement end, a reversal's reversing entry date.
 */
export type PeriodLocked = { reason: 'period_locked'; lock_date: IsoDate } & (
  | { transaction_ids: string[] }
  | { bank_account_id: string; end_date: IsoDate }
  | { ledger_entry_id: string; reversal_date: IsoDate }
  | { ledger_entry_id: string; entry_date: IsoDate }
);

/** Whether a record dated `date` lies in the closed period: on or before the lock date (none: nothing is closed). */
export const inClosedPeriod = (date: IsoDate, lockDate: IsoDate | null): boolean =>
  lockDate !== null && date <= lockDate;

export interface ChangedPrecondition {
  collection: Precondition['collection'];
  id: string;
  expected_version: number;
  /** null: the document is gone. */
  actual_version: number | null;
}

export const preconditionKey = (collection: string, id: string): string => `${collection}/${id}`;

/** The preconditions whose document changed, in the plan's order; [] when the plan may be applied. */
export function changedPreconditions(
  preconditions: readonly Precondition[],
  current: ReadonlyMap<string, number>,
): ChangedPrecondition[] {
  const changed: ChangedPrecondition[] = [];
  for (const p of preconditions) {
    const actual = current.get(preconditionKey(p.collection, p.id)) ?? null;
    if (actual !== p.version)
      changed.push({ collection: p.collection, id: p.id, expected_version: p.version, actual_version: actual });
  }
  return changed;
}
