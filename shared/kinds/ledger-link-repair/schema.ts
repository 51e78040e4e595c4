// Request body of POST /api/v1/cli/bank-matches/ledger-link-repair/stage
// (docs/reference/http-api.md §8). Unknown fields are refused; `as_of` must be a real calendar
// date (2026-02-30 is not one).
import type { FromSchema } from 'json-schema-to-ts';
import { id, isoDate, text } from '../../schemas/common.js';

export const linkRepairStageRequestSchema = {
  title: 'Ledger link repair stage request',
  type: 'object',
  additionalProperties: false,
  required: ['bank_account_id', 'counterparty_id'],
  properties: {
    bank_account_id: { ...id, description: 'The bank account whose transactions are repaired.' },
    counterparty_id: { ...id, description: 'The counterparty whose transactions and ledger entries are re-linked.' },
    as_of: {
      ...isoDate,
      description: 'Transactions and entries dated on or before this day are in its record set; default today (UTC).',
    },
    note: {
      ...text(1000),
      description: 'Free text for the reviewer; kept with the staged operation, not part of the plan.',
    },
  },
} as const;

/** The body once it has passed `linkRepairStageRequestSchema`. */
export type LinkRepairStageRequestBody = FromSchema<typeof linkRepairStageRequestSchema>;
