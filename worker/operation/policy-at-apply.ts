// Apply checks the approval policy again (docs/design/staged-lifecycle.md "Apply
// checks the policy again"): the policy in force now may ask more than the
// operation was given (a tightened rule, a higher amount bracket, people
// where agents approved). Then the operation goes back to `staged` with the
// new requirement, keeping the approvals that still qualify, and apply
// answers 409 `policy_changed`. The rule is the pure checkAtApply.
import { checkAtApply, type ApprovalState } from '../../shared/domain/approval-policy.js';
import { approvalSubject } from '../../shared/kinds/registry.js';
import { findCurrentPolicy } from '../../shared/storage/approval-policies.js';
import { findApprovals, mergeApprovals, removeApprovals } from '../../shared/storage/approvals.js';
import type { StagedOperationDoc } from '../../shared/storage/collections.js';
import { transitionStatus, type TransitionOutcome } from '../../shared/storage/staged-operation-status.js';
import type { JobContext } from '../job-context.js';
import { historyItem } from './claims.js';
import { baseCurrencyOf } from './operation-access.js';

/** What approving it takes now, when the approvals given no longer hold; null when they do (or it was staged before policies). */
export async function policyChange(ctx: JobContext, op: StagedOperationDoc): Promise<ApprovalState | null> {
  if (!op.approval) return null;
  const { db, data } = ctx;
  const [policy, slots] = await Promise.all([
    findCurrentPolicy(db, data.org_id),
    findApprovals(db, data.org_id, [op._id]),
  ]);
  const merged = mergeApprovals(op, slots);
  const agents = new Set(slots.filter((s) => s.agent).map((s) => s.actor));
  const check = checkAtApply(
    policy,
    approvalSubject({ ...op, context: op.context ?? {} }, baseCurrencyOf(ctx)),
    merged.approval!.given,
    agents,
  );
  return check.outcome === 'holds' ? null : check.approval;
}

/**
 * approved → staged with the new requirement (a new round: its transitions are claimed afresh). The
 * operation stores the policy's own approvals kept; the actors' approvals that no longer qualify are removed.
 */
export async function backToStaged(
  ctx: JobContext,
  op: StagedOperationDoc,
  approval: ApprovalState,
): Promise<TransitionOutcome> {
  const { db, data } = ctx;
  const slots = await findApprovals(db, data.org_id, [op._id]);
  const kept = new Set(approval.given.map((g) => g.actor));
  // Stored on the operation: the kept approvals that are no actor's slot (the policy's own, unattended).
  const own = approval.given.filter((g) => !slots.some((s) => s.actor === g.actor));
  const stored: ApprovalState = { ...approval, given: own, remaining: approval.required - own.length };
  const moved = await transitionStatus(
    db,
    data.org_id,
    op._id,
    'approved',
    historyItem(ctx, 'approved', 'staged', 'the approval policy changed'),
    { approval: stored },
    { loaded: op },
  );
  if (moved.won) {
    await removeApprovals(
      db,
      data.org_id,
      op._id,
      slots.filter((s) => !kept.has(s.actor)).map((s) => s.actor),
    );
    ctx.log.info({ staged_operation_id: op._id, required: approval.required }, 'policy changed: staged again');
  }
  return moved;
}
