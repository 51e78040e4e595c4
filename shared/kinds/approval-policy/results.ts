// The `data` of a policy change's staging answer (docs/design/staged-lifecycle.md
// "Approval policies"): the staging fields every kind answers, with its plan.
import { dryRunResultSchema, planHash, stagedFields } from '../../schemas/staging-results.js';
import { planContextSchema } from '../../schemas/plan-context.js';
import { approvalRuleSchema, unattendedAllowanceSchema } from './schema.js';

const policyRule = {
  ...approvalRuleSchema,
  required: ['kinds', 'min_amount_minor', 'approvals', 'approvers'],
} as const;

export const approvalPolicyPlanSchema = {
  title: 'ApprovalPolicyPlan',
  type: 'object',
  additionalProperties: false,
  required: ['base_version', 'version', 'rules', 'agents_may_approve', 'unattended'],
  properties: {
    base_version: { type: 'integer', minimum: 0, description: 'The version in force when it was staged.' },
    version: { type: 'integer', minimum: 1, description: 'The version applying it makes current.' },
    rules: { type: 'array', items: policyRule },
    agents_may_approve: { type: 'boolean' },
    unattended: { type: 'array', items: unattendedAllowanceSchema },
  },
} as const;

const stagedResultSchema = {
  title: 'ApprovalPolicyStageResult',
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(stagedFields).filter((k) => k !== 'approval'), 'plan', 'plan_hash'],
  properties: { ...stagedFields, plan: approvalPolicyPlanSchema, plan_hash: planHash },
} as const;

/** A noop (the policy asked for is the one in force) answers its plan too. */
const noopResultSchema = {
  title: 'ApprovalPolicyNoopResult',
  type: 'object',
  additionalProperties: false,
  required: ['outcome', 'plan', 'plan_hash'],
  properties: {
    outcome: { const: 'noop' },
    context: planContextSchema,
    plan: approvalPolicyPlanSchema,
    plan_hash: planHash,
  },
} as const;

export const approvalPolicyDryRunSchema = dryRunResultSchema('ApprovalPolicyDryRunResult', approvalPolicyPlanSchema);

export const approvalPolicyResultSchema = {
  title: 'ApprovalPolicyResult',
  oneOf: [stagedResultSchema, noopResultSchema],
} as const;

export { stagedResultSchema as approvalPolicyStagedSchema };
