// A policy change as a plan (docs/design/staged-lifecycle.md "Approval policies"):
// the policy that applying it puts in force, the version it replaces and the
// version it becomes. Pure: the worker loads the current policy.
import type { Decision } from '../../domain/decision.js';
import type { ApprovalPolicy, ApprovalPolicyPlan } from '../../domain/approval-policy.js';
import { planHash } from '../../domain/plan-hash.js';
import type { ApprovalPolicyStageInput } from './schema.js';

export type { ApprovalPolicyPlan };

/** The one plan lock every pending policy change takes: one change at a time per organisation. */
export const APPROVAL_POLICY_SUBJECT_KEY = 'approval_policy';

/** The policy as the request states it, every optional member spelt out (so equal policies hash equal). */
function requested(input: ApprovalPolicyStageInput): Omit<ApprovalPolicyPlan, 'base_version' | 'version'> {
  return {
    rules: input.rules.map((r) => ({
      kinds: [...r.kinds],
      min_amount_minor: r.min_amount_minor ?? 0,
      approvals: r.approvals,
      approvers: r.approvers,
    })),
    agents_may_approve: input.agents_may_approve,
    unattended: input.unattended.map((u) => ({ ...u, kinds: [...u.kinds] })),
  };
}

const sameRules = (a: Omit<ApprovalPolicyPlan, 'base_version' | 'version'>, b: ApprovalPolicy): boolean =>
  planHash(a) ===
  planHash({
    rules: b.rules.map((r) => ({ ...r, min_amount_minor: r.min_amount_minor ?? 0 })),
    agents_may_approve: b.agents_may_approve,
    unattended: b.unattended,
  });

/**
 * Stage the requested policy over `current`. Asking for the policy already in
 * force (a set one, version ≥ 1) is a noop: nothing would change.
 */
export function decideApprovalPolicy(
  current: ApprovalPolicy,
  input: ApprovalPolicyStageInput,
): Decision<ApprovalPolicyPlan> {
  const wanted = requested(input);
  const plan: ApprovalPolicyPlan = { base_version: current.version, version: current.version + 1, ...wanted };
  const plan_hash = planHash(plan);
  if (current.version >= 1 && sameRules(wanted, current)) return { outcome: 'noop', plan, plan_hash, warnings: [] };
  return {
    outcome: 'staged',
    plan,
    plan_hash,
    locks: { subject_key: APPROVAL_POLICY_SUBJECT_KEY, entry_ids: [], transaction_ids: [] },
    preconditions: [],
    warnings: [],
  };
}
