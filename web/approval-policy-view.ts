// The plan of a policy change (docs/guide/review-page.md "Views";
// docs/design/staged-lifecycle.md "Approval policies"): the policy it puts in
// force, rule by rule in the order they are tried, and the unattended allowances.
import { facts, h, table } from './dom.js';
import type {
  ApprovalPolicyPlan,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

export function approvalPolicyView(op: StagedOperation): HTMLElement {
  const plan = op.plan as ApprovalPolicyPlan;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, `Approval policy version ${plan.version}`),
    facts([
      ['Replaces version', String(plan.base_version)],
      ['Agents may approve', plan.agents_may_approve ? 'yes' : 'no'],
    ]),
    table(
      'Rules, tried in order',
      ['Rule', 'Kinds', 'From amount (minor units)', 'Approvals', 'Approvers'],
      plan.rules.map((r, i) => [
        String(i + 1),
        r.kinds.join(', '),
        String(r.min_amount_minor ?? 0),
        String(r.approvals),
        r.approvers,
      ]),
    ),
    table(
      'Unattended allowances',
      ['Actor', 'Kinds', 'Max amount', 'Max per UTC day'],
      plan.unattended.map((u) => [
        u.actor,
        u.kinds.join(', '),
        String(u.max_amount_minor),
        String(u.max_per_day_minor),
      ]),
    ),
  );
}
