// What applying a period close writes (docs/design/staged-lifecycle.md "Closed
// periods"): the closed period, then the organisation's lock date. Pure: apply
// passes what it read when it started (the organisation, the period's hash and
// who approved); the journal is stored with the operation, so a resumed apply
// writes exactly these (docs/design/staged-lifecycle.md "Crash safety").
import type { IsoDate } from '../../domain/books.js';
import { failed, type KindJournal } from '../../domain/apply-journal.js';
import { ok } from '../../domain/result.js';
import type { PeriodClosePlan } from './plan.js';

export const periodCloseKindJournal: KindJournal = {
  plan: (plan, books, ctx) =>
    books.kind
      ? ok({
          writes: periodCloseJournal(plan as PeriodClosePlan, books.kind as PeriodCloseApplyBooks, ctx),
          links: null,
        })
      : failed('period_not_read', {}),
};

/** What apply reads for a close beyond its preconditions (worker/kinds/period-close/apply.ts). */
export interface PeriodCloseApplyBooks {
  org: { id: string; version: number; lock_date: IsoDate | null };
  /** shared/domain/period-hash.ts of the period's records as apply found them. */
  hash: string;
  /** Who approved the close. */
  approved_by: string;
}

/** The stored `_id` of a closed period: one per organisation and `through`. */
export const closedPeriodId = (orgId: string, through: IsoDate): string => `${orgId}:${through}`;

/** The writes, in the shapes of shared/domain/apply-journal.ts JournalWrite. */
export type PeriodCloseWrite =
  | { action: 'insert'; collection: 'closed_periods'; id: string; doc: Record<string, unknown> }
  | {
      action: 'update';
      collection: 'orgs';
      id: string;
      version: number;
      set: Record<string, unknown>;
      before: Record<string, unknown>;
    };

export function periodCloseJournal(
  plan: PeriodClosePlan,
  books: PeriodCloseApplyBooks,
  ctx: { staged_operation_id: string; now: string },
): PeriodCloseWrite[] {
  return [
    {
      action: 'insert',
      collection: 'closed_periods',
      id: closedPeriodId(books.org.id, plan.through),
      doc: {
        through: plan.through,
        closed_at: ctx.now,
        approved_by: books.approved_by,
        hash: books.hash,
        staged_operation_id: ctx.staged_operation_id,
        lock_date_before: books.org.lock_date,
        version: 1,
      },
    },
    {
      action: 'update',
      collection: 'orgs',
      id: books.org.id,
      version: books.org.version,
      set: { lock_date: plan.through },
      before: { lock_date: books.org.lock_date },
    },
  ];
}
