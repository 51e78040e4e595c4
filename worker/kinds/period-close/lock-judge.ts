// Which pending operations a new lock date would refuse (docs/design/staged-lifecycle.md
// "Closed periods"): each kind answers for its own plans through its
// `periodLocked` hook (worker/kinds.ts), so a kind added later counts by
// stating that hook. The judge is handed in by the registry, which this
// folder cannot import (it is imported by it).
import type { IsoDate } from '../../../shared/domain/books.js';
import { compareIds } from '../../../shared/domain/books.js';
import type { StagedKind } from '../../../shared/domain/staged-kind.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { pendingOperationsOfKinds } from '../../../shared/storage/pending-operations.js';
import type { JobContext } from '../../job-context.js';

export interface LockJudge {
  /** The kinds whose plans a lock date can refuse (those with a `periodLocked` hook). */
  kinds(): readonly StagedKind[];
  /** Whether the lock date `through` would refuse this operation's plan. */
  refuses(op: StagedOperationDoc, through: IsoDate): boolean;
}

/** The ids of the organisation's staged, approved or applying operations the lock date `through` would refuse, by id. */
export async function operationsRefusedBy(
  ctx: Pick<JobContext, 'db' | 'data'>,
  judge: LockJudge,
  through: IsoDate,
): Promise<string[]> {
  const pending = await pendingOperationsOfKinds(ctx.db, ctx.data.org_id, judge.kinds());
  return pending
    .filter((op) => judge.refuses(op, through))
    .map((op) => op._id)
    .sort(compareIds);
}
