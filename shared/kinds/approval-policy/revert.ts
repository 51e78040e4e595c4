// What a revert of a policy change writes (docs/design/staged-lifecycle.md
// "Reverts"): the policy it replaced, back in force as a new version (the
// version in force + 1), never the removal of the version it made (versions
// only go up). Refused, as every kind, when the policy in force is no longer
// the one it made: a later change applied and not reverted (changed_since_apply).
// Once every later change is reverted, it can be reverted in turn, as a
// reconciliation once the later one is reverted.
import { approvalPolicyId, type ApprovalPolicy, type ApprovalPolicyPlan } from '../../domain/approval-policy.js';
import type { KindRevertRules } from '../revert/plan.js';
import { APPROVAL_POLICY_SUBJECT_KEY } from './plan.js';

/** A version written after the change's: by a later change (`operation`) or by the revert of one (`reverts`). */
export interface LaterPolicyVersion {
  version: number;
  /** The change that wrote it; null on a version a revert wrote. */
  operation: string | null;
  /** The change whose revert wrote it; null on a version a change wrote. */
  reverts: string | null;
}

/** What the worker reads for it: the organisation, the version in force, the versions above the change's, and the policy it replaced. */
export interface ApprovalPolicyRevertExtra {
  org_id: string;
  current_version: number;
  /** By version. */
  later: LaterPolicyVersion[];
  previous: Pick<ApprovalPolicy, 'rules' | 'agents_may_approve' | 'unattended'>;
}

/** Whether every change written after the versions is reverted, latest first (each revert takes back the latest one standing). */
function laterAllReverted(later: readonly LaterPolicyVersion[]): boolean {
  const standing: Array<string | null> = [];
  for (const v of later) {
    if (v.reverts === null) standing.push(v.operation);
    else if (standing.length > 0 && standing[standing.length - 1] === v.reverts) standing.pop();
    else return false;
  }
  return standing.length === 0;
}

export const approvalPolicyRevertRules: KindRevertRules<ApprovalPolicyRevertExtra> = {
  subjectKeys: () => [APPROVAL_POLICY_SUBJECT_KEY],
  changed: (subject, { extra }) => {
    const made = (subject.plan as ApprovalPolicyPlan).version;
    return extra.current_version === made || laterAllReverted(extra.later.filter((v) => v.version > made))
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
