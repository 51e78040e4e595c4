// The closed periods as stored (docs/design/staged-lifecycle.md "Closed
// periods"): the apply of a period close inserts one (its journal), these are
// its reads, each an equality on org_id sorted by `through` (indexed,
// shared/storage/indexes.ts).
import type { Db } from 'mongodb';
import { collections, type ClosedPeriodDoc } from './collections.js';

export interface ClosedPeriod {
  through: string;
  closed_at: string;
  approved_by: string;
  hash: string;
  staged_operation_id: string;
}

const FIELDS = { _id: 0, through: 1, closed_at: 1, approved_by: 1, hash: 1, staged_operation_id: 1 } as const;
type Projected = Pick<ClosedPeriodDoc, 'through' | 'closed_at' | 'approved_by' | 'hash' | 'staged_operation_id'>;

const shape = (d: Projected): ClosedPeriod => ({
  through: d.through,
  closed_at: d.closed_at,
  approved_by: d.approved_by,
  hash: d.hash,
  staged_operation_id: d.staged_operation_id,
});

/** Up to `limit` closed periods of the organisation with `through` after `after` (null: from the first), by through. */
export async function closedPeriodsPage(
  db: Db,
  orgId: string,
  after: string | null,
  limit: number,
): Promise<ClosedPeriod[]> {
  const docs = await collections(db)
    .closedPeriods.find(after === null ? { org_id: orgId } : { org_id: orgId, through: { $gt: after } })
    .project<Projected>(FIELDS)
    .sort({ through: 1 })
    .limit(limit)
    .toArray();
  return docs.map(shape);
}

/** The organisation's period closed through this day, or null. */
export async function findClosedPeriod(db: Db, orgId: string, through: string): Promise<ClosedPeriod | null> {
  const doc = await collections(db)
    .closedPeriods.find({ org_id: orgId, through })
    .project<Projected>(FIELDS)
    .limit(1)
    .toArray();
  return doc[0] ? shape(doc[0]) : null;
}
