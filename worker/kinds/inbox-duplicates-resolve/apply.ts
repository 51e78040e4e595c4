// What applying a duplicate resolution reads beyond its preconditions
// (docs/design/staged-lifecycle.md "Reverts"): for a not_duplicates decision,
// the versions ever reserved on its dismissal's id. The same decision made
// again after a revert removed the dismissal brings it back under the same id,
// above the version it had.
import type { ApplyBooks } from '../../../shared/domain/apply-journal.js';
import { dismissalId, type InboxResolveApplyBooks } from '../../../shared/kinds/inbox-duplicates-resolve/journal.js';
import type { InboxResolvePlan } from '../../../shared/kinds/inbox-duplicates-resolve/plan.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { highestReservedVersions } from '../../../shared/storage/version-reservations.js';
import type { JobContext } from '../../job-context.js';

export async function inboxResolveApplyBooks(ctx: JobContext, op: StagedOperationDoc): Promise<Partial<ApplyBooks>> {
  const plan = op.plan as InboxResolvePlan;
  if (plan.resolution !== 'not_duplicates') return {};
  const id = dismissalId(ctx.data.org_id, plan.member_ids);
  const reserved = await highestReservedVersions(ctx.db, ctx.data.org_id, 'duplicate_dismissals', [id]);
  const kind: InboxResolveApplyBooks = { dismissal_reserved_version: reserved.get(id) ?? 0 };
  return { kind };
}
