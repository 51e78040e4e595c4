// Request body of POST /api/v1/cli/bank-matches/reconcile/stage (docs/reference/http-api.md §7).
// A plain draft-07 JSON schema for Ajv (with ajv-formats for `date`); the
// OpenAPI document is built from the same object. Unknown fields are refused.
import type { FromSchema } from 'json-schema-to-ts';
import { currency, id, isoDate, minor, text } from '../../schemas/common.js';

export const reconcileStageRequestSchema = {
  title: 'ReconcileStageRequest',
  type: 'object',
  additionalProperties: false,
  required: ['bank_account_id', 'statement', 'transaction_ids'],
  properties: {
    bank_account_id: { ...id, description: 'The bank account the statement belongs to.' },
    statement: {
      type: 'object',
      additionalProperties: false,
      required: ['end_date', 'closing_balance_minor', 'currency'],
      properties: {
        end_date: { ...isoDate, description: 'Last day the statement covers (YYYY-MM-DD).' },
        closing_balance_minor: { ...minor, description: 'Closing balance on the statement, in integer minor units.' },
        currency: { ...currency, description: 'ISO 4217 code; must be the account currency.' },
        reference: { ...text(200), description: 'The statement reference, e.g. its number.' },
      },
    },
    transaction_ids: {
      type: 'array',
      minItems: 1,
      maxItems: 10000,
      uniqueItems: true,
      items: id,
      description: 'The bank transactions the statement clears.',
    },
    note: { ...text(1000), description: 'Free text for the reviewer; not part of the plan.' },
  },
} as const;

/** The body once it has passed `reconcileStageRequestSchema`. */
export type ReconcileStageRequestBody = FromSchema<typeof reconcileStageRequestSchema>;
