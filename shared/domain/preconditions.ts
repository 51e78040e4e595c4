// Staleness (docs/design/staged-lifecycle.md "Apply"): a plan may be applied only
// while every document it read still has the version it read. Pure.
import type { Precondition } from './books.js';

/** An apply's plan writes records that the organisation's lock date now covers: its `stale_plan` details (docs/guide/statement-import.md "Apply"). */
export interface PeriodLocked {
  reason: 'period_locked';
  lock_date: string;
  transaction_ids: string[];
}

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
