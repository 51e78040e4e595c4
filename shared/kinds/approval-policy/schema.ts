// Body of POST /api/v1/cli/approval-policy/stage (docs/design/staged-lifecycle.md
// "Approval policies"): the whole policy an organisation wants in force next.
// A kind the registry does not know, an approvals count outside 1–5 or an
// unknown member is refused (400, with the JSON pointer of the bad value).
import type { FromSchema } from 'json-schema-to-ts';
import { STAGED_KINDS } from '../../domain/staged-kind.js';
import { MAX_SAFE, text } from '../../schemas/common.js';

const kinds = {
  type: 'array',
  minItems: 1,
  maxItems: 32,
  uniqueItems: true,
  items: { enum: ['*', ...STAGED_KINDS] },
  description: 'The kinds it governs (a staged kind, or `"*"` for every kind).',
} as const;

const amount = { type: 'integer', minimum: 0, maximum: MAX_SAFE } as const;

export const approvalRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kinds', 'approvals', 'approvers'],
  properties: {
    kinds,
    min_amount_minor: {
      ...amount,
      description: 'It governs operations of at least this amount (minor units); 0 when absent.',
    },
    approvals: { type: 'integer', minimum: 1, maximum: 5, description: 'Distinct approvers needed.' },
    approvers: { enum: ['any', 'people'], description: '`people`: no agent counts.' },
  },
} as const;

export const unattendedAllowanceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['actor', 'kinds', 'max_amount_minor', 'max_per_day_minor'],
  properties: {
    actor: { ...text(200), minLength: 1, description: 'The actor whose stagings the policy approves itself.' },
    kinds,
    max_amount_minor: { ...amount, description: 'At most this amount per operation.' },
    max_per_day_minor: { ...amount, description: "At most this total per UTC day, this operation's included." },
  },
} as const;

export const approvalPolicyStageRequestSchema = {
  title: 'Approval policy stage request',
  type: 'object',
  additionalProperties: false,
  required: ['rules', 'agents_may_approve', 'unattended'],
  properties: {
    rules: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: approvalRuleSchema,
      description: 'Tried in order: the first that governs the kind and whose minimum the amount reaches decides.',
    },
    agents_may_approve: { type: 'boolean', description: 'false: no approval by an agent counts anywhere.' },
    unattended: { type: 'array', maxItems: 50, items: unattendedAllowanceSchema },
  },
} as const;

export type ApprovalPolicyStageInput = FromSchema<typeof approvalPolicyStageRequestSchema>;
