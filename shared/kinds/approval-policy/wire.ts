// The policy change kind as the wire knows it (docs/design/architecture.md "Kinds";
// docs/design/staged-lifecycle.md "Approval policies"): its staging call's route
// entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { ApprovalPolicyPlan } from '../../domain/approval-policy.js';
import { orDryRun } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { approvalPolicyStageRequestSchema } from './schema.js';
import { approvalPolicyDryRunSchema, approvalPolicyResultSchema, approvalPolicyStagedSchema } from './results.js';

const APPROVAL_POLICY_ERRORS: ErrorCode[] = ['not_found'];

export const approvalPolicy: KindModule<'approval_policy'> = {
  kind: 'approval_policy',
  route: stagingRoute({
    operation: 'approval_policy.stage',
    summary: "Stage a change of the organisation's approval policy",
    description:
      'Stages the whole policy to put in force next (rules, agents_may_approve, unattended). Applying it makes it the current version (+1). It needs one approval by a person who did not stage it, or more where a rule for its kind asks for more; agents never count for it.',
    scope: 'policy:stage',
    body: { schema: approvalPolicyStageRequestSchema, required: true },
    answered: {
      description:
        '`noop` (the policy asked for is the one in force), or the very same change already pending (`staged`, warning `already_staged`).',
      data: orDryRun(approvalPolicyResultSchema, approvalPolicyDryRunSchema),
    },
    created: { data: approvalPolicyStagedSchema },
    refusals: APPROVAL_POLICY_ERRORS,
  }),
  refusals: APPROVAL_POLICY_ERRORS,
  summary: (plan) => {
    const p = plan as ApprovalPolicyPlan;
    return {
      base_version: p.base_version,
      version: p.version,
      rules: p.rules.length,
      agents_may_approve: p.agents_may_approve,
      unattended: p.unattended.length,
    };
  },
  // A policy change moves no money.
  amount: () => ({ amount_minor: 0, currency: null }),
  governance: true,
  cli: { label: 'approval policy change', noop: 'the policy asked for is the one in force' },
  mcp: {
    name: 'stage_approval_policy',
    title: "Stage a change of the organisation's approval policy",
    description:
      'Stages the approval policy to put in force next: rules (tried in order; kinds, min_amount_minor, approvals 1-5, approvers "any" or "people"), ' +
      'agents_may_approve, and unattended allowances (actor, kinds, max_amount_minor, max_per_day_minor). get_approval_policy shows the one in force. ' +
      `${NOTHING_CHANGES} A person other than you must approve it; no agent counts. Only offered when a person started this server with --allow-review. ${OUTCOMES} ${KEY}`,
    gate: 'review',
  },
};
