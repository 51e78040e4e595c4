// Request body of POST /api/v1/cli/bank-matches/reconcile/stage (DESIGN §5.1).
// A plain draft-07 JSON schema for Ajv (with ajv-formats for `date`); the
// OpenAPI document is built from the same object. Unknown fields are refused.

const id = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9._:-]+$',
} as const;

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
        end_date: { type: 'string', format: 'date', description: 'Last day the statement covers (YYYY-MM-DD).' },
        closing_balance_minor: {
          type: 'integer',
          minimum: -9007199254740991,
          maximum: 9007199254740991,
          description: 'Closing balance on the statement, in integer minor units.',
        },
        currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code; must be the account currency.' },
        reference: { type: 'string', maxLength: 200, description: 'The statement reference, e.g. its number.' },
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
    note: { type: 'string', maxLength: 1000, description: 'Free text for the reviewer; not part of the plan.' },
  },
} as const;

/** The body once it has passed `reconcileStageRequestSchema`. */
export interface ReconcileStageRequestBody {
  bank_account_id: string;
  statement: {
    end_date: string;
    closing_balance_minor: number;
    currency: string;
    reference?: string;
  };
  transaction_ids: string[];
  note?: string;
}
