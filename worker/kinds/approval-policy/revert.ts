// Reverting a policy change (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads the version in force, the versions written after the change's
// (by later changes and their reverts) and the policy the change replaced (by
// `_id`; version 0 is the default policy, never stored).
import {
  approvalPolicyRevertRules,
  type ApprovalPolicyRevertExtra,
} from '../../../shared/kinds/approval-policy/revert.js';
import type { ApprovalPolicyPlan } from '../../../shared/domain/approval-policy.js';
import {
  findCurrentPolicy,
  findPolicyVersion,
  findPolicyVersionsAbove,
} from '../../../shared/storage/approval-policies.js';
import { revertHook } from '../revert/hook.js';

export const approvalPolicyRevert = revertHook<ApprovalPolicyRevertExtra>({
  rules: approvalPolicyRevertRules,
  load: async (ctx, subject) => {
    const orgId = ctx.data.org_id;
    const plan = subject.plan as ApprovalPolicyPlan;
    const [current, later, previous] = await Promise.all([
      findCurrentPolicy(ctx.db, orgId),
      findPolicyVersionsAbove(ctx.db, orgId, plan.version),
      findPolicyVersion(ctx.db, orgId, plan.base_version),
    ]);
    if (!previous) throw new Error(`approval policy ${orgId} v${plan.base_version} is missing`);
    return { org_id: orgId, current_version: current.version, later, previous };
  },
});
