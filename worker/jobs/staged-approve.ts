// POST /staged-operations/{id}/approve as a job (docs/design/staged-lifecycle.md
// "Approval policies"), on the lifecycle frame (worker/operation/lifecycle-job.ts):
// one more approval. The approver is judged by the pure rule (approverRefusal:
// the creator, an agent where agents may not approve or the rule wants people,
// the same actor twice); its approval takes the next free slot
// (shared/storage/approvals.ts), so approvals by different actors at once all
// count. The operation stays `staged` until the approvals reach the required;
// the approval that completes them moves it staged → approved, as the one
// approval did before policies.
import { approverRefusal, DEFAULT_POLICY, isAgent, type Approver } from '../../shared/domain/approval-policy.js';
import type { ErrorCode } from '../../shared/errors.js';
import { KINDS } from '../../shared/kinds/registry.js';
import { findPolicyVersion } from '../../shared/storage/approval-policies.js';
import {
  recordApprover,
  takeSlot,
  findApprovals,
  mergeApprovals,
  recordApprovalAdded,
} from '../../shared/storage/approvals.js';
import type { ApprovalDoc, StagedOperationDoc } from '../../shared/storage/collections.js';
import type { JobContext } from '../job-context.js';
import { afterLostClaim } from '../operation/claims.js';
import {
  commitTransition,
  lifecycleJob,
  refusedAnswer,
  type Committed,
  type TransitionTo,
} from '../operation/lifecycle-job.js';
import { lifecycleInput, operationOutcome } from '../operation/operation-access.js';

export const approveStagedOperation = lifecycleJob({ action: 'approve', target: 'approved', commit: approve });

async function approve(ctx: JobContext, loaded: StagedOperationDoc, decision: TransitionTo): Promise<Committed> {
  // An operation staged before policies: one approval moves it, as before.
  if (!loaded.approval) return commitTransition(ctx, loaded, decision);
  const { db, data } = ctx;
  const input = lifecycleInput(ctx);
  const approver: Approver = { actor: data.actor, agent_token: input.agent === true };
  const [policy, slots] = await Promise.all([
    findPolicyVersion(db, data.org_id, loaded.approval.policy_version),
    findApprovals(db, data.org_id, [loaded._id]),
  ]);
  // The operation as stored (the policy's own approval only), then with the approvals of others: this very job's
  // (a retried attempt) is not "the same actor twice".
  const op = storedApproval(loaded, slots);
  const before = mergeApprovals(
    op,
    slots.filter((s) => s.claim_id !== ctx.jobId),
  );
  // The org's require_distinct_approver was judged by decideTransition (version 0); a set policy and the governance kinds bar the creator here.
  const subject = { created_by: op.created_by, kind: op.kind, governance: KINDS[op.kind].governance === true };
  const refusal = approverRefusal(policy ?? DEFAULT_POLICY, before.approval!, subject, approver, false);
  if (refusal) return refuse(ctx, op, refusal.code, refusal.details);

  const approval: Omit<ApprovalDoc, '_id' | 'slot'> = {
    org_id: data.org_id,
    staged_operation_id: op._id,
    actor: data.actor,
    at: ctx.now.toISOString(),
    agent: isAgent(approver),
    note: input.note ?? null,
    request_id: data.request_id,
    claim_id: ctx.jobId,
  };
  // Another job of the same actor got its approval in first.
  if (!(await recordApprover(db, approval))) return refuse(ctx, op, 'already_approved', { actor: data.actor });
  const last = op.approval!.required - op.approval!.given.length;
  const slot = await takeSlot(db, approval, 1, last);
  // Every slot was taken meanwhile: the operation is approved without this one (as two racing approvals were before policies).
  if (slot === null) return refuse(ctx, op, 'invalid_transition', { status: 'approved', action: 'approve' });
  const after = mergeApprovals(op, await findApprovals(db, data.org_id, [op._id]));
  ctx.log.info({ staged_operation_id: op._id, slot, required: op.approval!.required }, 'approval added');
  // Under a set policy each approval is its own event, the last one too (then also staged_operation.approved);
  // under version 0 the one approval is the transition's event alone, as before policies.
  if (after.approval!.remaining > 0 || after.approval!.policy_version >= 1)
    await recordApprovalAdded(db, after, approval, slot);
  if (after.approval!.remaining > 0) return { won: true, answer: await operationOutcome(ctx, after) };
  const moved = await commitTransition(ctx, after, decision);
  if (moved.won || moved.claim.to !== 'approved') return moved;
  // Another approval completed it at the same moment (this one counted too), or an earlier attempt of this job did.
  return { won: true, answer: await operationOutcome(ctx, await afterLostClaim(db, after, moved.claim)) };
}

/** The operation's approval as stored (the policy's own at staging), without the slots merged in when it was loaded. */
function storedApproval(op: StagedOperationDoc, slots: readonly ApprovalDoc[]): StagedOperationDoc {
  const given = op.approval!.given.filter((g) => !slots.some((s) => s.actor === g.actor));
  return { ...op, approval: { ...op.approval!, given, remaining: op.approval!.required - given.length } };
}

function refuse(ctx: JobContext, op: StagedOperationDoc, code: ErrorCode, details: Record<string, unknown>): Committed {
  return { won: true, answer: refusedAnswer(ctx, { code, details: { staged_operation_id: op._id, ...details } }) };
}
