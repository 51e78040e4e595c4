// Path and body of POST /api/v1/cli/ledger/entries/{entry_id}/reverse/stage
// (docs/reference/http-api.md). An absent body is the same as {}.
import type { FromSchema } from 'json-schema-to-ts';
import { id, isoDate, text } from '../../schemas/common.js';

export const reversalStageParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { entry_id: id },
  required: ['entry_id'],
} as const;

export const reversalStageRequestSchema = {
  title: 'Ledger reversal stage request',
  type: 'object',
  additionalProperties: false,
  properties: {
    reversal_date: {
      ...isoDate,
      description:
        'Date of the reversing entry; default today (UTC). Must be on or after the entry date and after the lock date.',
    },
    reason: { ...text(500), description: 'Why the entry is reversed; null in the plan when absent.' },
  },
} as const;

/** The body once it has passed `reversalStageRequestSchema`. */
export type ReversalStageRequestBody = FromSchema<typeof reversalStageRequestSchema>;
export type ReversalStageParams = FromSchema<typeof reversalStageParamsSchema>;
/** What the job gets: the path's entry id and the body. */
export type ReversalStageInput = ReversalStageParams & ReversalStageRequestBody;
