// The answer of GET /api/v1/cli/approval-policy (docs/design/staged-lifecycle.md
// "Approval policies"): the organisation's policy in force, version 0 when it
// never set one.
import { approvalRuleSchema, unattendedAllowanceSchema } from '../kinds/approval-policy/schema.js';

export const approvalPolicySchema = {
  title: 'Approval policy',
  type: 'object',
  additionalProperties: false,
  required: ['version', 'rules', 'agents_may_approve', 'unattended', 'updated_at', 'updated_by_operation'],
  properties: {
    version: { type: 'integer', minimum: 0, description: '0: the organisation never set one (one approval, anyone).' },
    rules: {
      type: 'array',
      items: { ...approvalRuleSchema, required: ['kinds', 'min_amount_minor', 'approvals', 'approvers'] },
      description: 'Tried in order: the first that governs the kind and whose minimum the amount reaches decides.',
    },
    agents_may_approve: { type: 'boolean' },
    unattended: { type: 'array', items: unattendedAllowanceSchema },
    updated_at: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'When its change was applied; null for version 0.',
    },
    updated_by_operation: {
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'The staged operation that made it; null for version 0.',
    },
  },
} as const;
