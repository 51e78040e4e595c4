import { id, isoDate } from './common.js';

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
    reversal_date: { ...isoDate, description: 'Date of the reversing entry; default today (UTC). Must be on or after the entry date and after the lock date.' },
    reason: { type: 'string', maxLength: 500, description: 'Why the entry is reversed; null in the plan when absent.' },
  },
} as const;

export interface ReversalStageRequestBody {
  reversal_date?: string;
  reason?: string;
}
