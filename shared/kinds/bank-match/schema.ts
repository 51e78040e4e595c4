// Request body of POST /api/v1/cli/bank-matches/match/stage (docs/reference/http-api.md
// "Bank matches"): one to 500 pairs of a bank transaction of the account and a
// ledger entry, each with the amount its new link covers.
import type { FromSchema } from 'json-schema-to-ts';
import { id, positiveMinor, text } from '../../schemas/common.js';

/** The most pairs one operation may carry. */
export const MAX_MATCH_PAIRS = 500;

export const bankMatchStageRequestSchema = {
  title: 'Bank match stage request',
  type: 'object',
  additionalProperties: false,
  required: ['bank_account_id', 'matches'],
  properties: {
    bank_account_id: { ...id, description: 'The bank account of every transaction matched.' },
    matches: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MATCH_PAIRS,
      description:
        'The pairs, each a new link: one transaction to one entry, one transaction to several, several to one. A pair given twice is 400 `duplicate_pair`.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
        properties: {
          bank_transaction_id: id,
          ledger_entry_id: id,
          amount_minor: { ...positiveMinor, description: 'What the link covers of both, in integer minor units.' },
        },
      },
    },
    note: { ...text(1000), description: 'Free text for the reviewer; in the plan (`note`, null when absent).' },
  },
} as const;

/** The body once it has passed `bankMatchStageRequestSchema`. */
export type BankMatchStageRequestBody = FromSchema<typeof bankMatchStageRequestSchema>;

const str = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const object = (properties: Record<string, object>, extra: object = {}) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...extra,
});

/** The plan (shared/kinds/bank-match/plan.ts `BankMatchPlan`). */
export const bankMatchPlanSchema = object(
  {
    bank_account_id: str,
    currency: str,
    pairs: {
      type: 'array',
      description: 'By (bank_transaction_id, ledger_entry_id); each becomes one link.',
      items: object({ bank_transaction_id: str, ledger_entry_id: str, amount_minor: integer }),
    },
    transactions: {
      type: 'array',
      description: 'Each transaction matched, by id: what its links leave of |amount| before and after the operation.',
      items: object({
        bank_transaction_id: str,
        amount_minor: integer,
        linked_before_minor: integer,
        open_before_minor: integer,
        open_after_minor: integer,
      }),
    },
    entries: {
      type: 'array',
      description:
        'Each entry matched, by id: its open amount on the settlement accounts (signed) and what its links leave of it before and after.',
      items: object({
        ledger_entry_id: str,
        open_amount_minor: integer,
        linked_before_minor: integer,
        open_before_minor: integer,
        open_after_minor: integer,
      }),
    },
    total_minor: { ...integer, description: "Σ of the pairs' amounts (the operation's amount)." },
    note: { anyOf: [str, { type: 'null' }] },
  },
  { title: 'BankMatchPlan' },
);
