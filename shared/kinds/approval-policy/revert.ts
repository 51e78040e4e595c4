// What a revert of a policy change writes (docs/design/staged-lifecycle.md
// "Reverts"): the policy it replaced, back in force as a new version (the
// version in force + 1), never the removal of the version it made (versions
// only go up). Refused, as every kind, when the policy in force is no longer
// the one it made (a later change was applied: changed_since_apply); a later
// change since reverted put back what it made, so it can be reverted in turn,
// as a reconciliation once the later one is reverted.
import { approvalPolicyId, type ApprovalPolicy, type ApprovalPolicyPlan } from '../../domain/approval-policy.js';
import { canonicalJson } from '../../domain/plan-hash.js';
import type { KindRevertRules } from '../revert/plan.js';
import { APPROVAL_POLICY_SUBJECT_KEY } from './plan.js';

type PolicyContent = Pick<ApprovalPolicy, 'rules' | 'agents_may_approve' | 'unattended'>;

/** What the worker reads for it: the organisation, the policy in force (its version) and the policy the change replaced. */
export interface ApprovalPolicyRevertExtra {
  org_id: string;
  current_version: number;
  current: PolicyContent;
  previous: PolicyContent;
}

/** A policy's content as compared: a rule's absent `min_amount_minor` is 0 (as a revert writes it). */
const content = (p: PolicyContent): string =>
  canonicalJson({
    rules: p.rules.map((r) => ({ ...r, min_amount_minor: r.min_amount_minor ?? 0 })),
    agents_may_approve: p.agents_may_approve,
    unattended: p.unattended,
  });

export const approvalPolicyRevertRules: KindRevertRules<ApprovalPolicyRevertExtra> = {
  subjectKeys: () => [APPROVAL_POLICY_SUBJECT_KEY],
  changed: (subject, { extra }) => {
    const plan = subject.plan as ApprovalPolicyPlan;
    return extra.current_version === plan.version || content(extra.current) === content(plan)
      ? []
      : [{ collection: 'approval_policies', id: approvalPolicyId(extra.org_id, extra.current_version) }];
  },
  changes: (subject, { extra }) => {
    const version = extra.current_version + 1;
    return [
      {
        action: 'insert',
        collection: 'approval_policies',
        id: approvalPolicyId(extra.org_id, version),
        doc: {
          policy_version: version,
          rules: extra.previous.rules.map((r) => ({ ...r, min_amount_minor: r.min_amount_minor ?? 0 })),
          agents_may_approve: extra.previous.agents_may_approve,
          unattended: extra.previous.unattended,
          // Known once the revert is applied: the policy's reader takes them from the revert (its reverted_by).
          updated_at: null,
          updated_by_operation: null,
          reverts: subject.id,
          version: 1,
        },
      },
    ];
  },
};
