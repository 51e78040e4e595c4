// `approval` of a staged operation's view and of a staging answer
// (docs/design/staged-lifecycle.md "Approval policies"): the requirement
// recorded at staging and the approvals given so far.
export const approvalStateSchema = {
  title: 'Approval state',
  description:
    'What approving it takes under the approval policy (the deciding rule: `rule_index`, -1 for the default) and who approved so far. Absent on operations staged before approval policies.',
  type: 'object',
  additionalProperties: false,
  required: ['policy_version', 'rule_index', 'required', 'approvers', 'given', 'remaining'],
  properties: {
    policy_version: { type: 'integer', minimum: 0 },
    rule_index: { type: 'integer', minimum: -1 },
    required: { type: 'integer', minimum: 1, maximum: 5 },
    approvers: { enum: ['any', 'people'], description: '`people`: no agent counts.' },
    given: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['actor', 'at'],
        properties: {
          actor: {
            type: 'string',
            description: 'The approver, or `policy:v<N>` for an unattended approval by policy version N.',
          },
          at: { type: 'string' },
        },
      },
    },
    remaining: { type: 'integer', minimum: 0 },
  },
} as const;
