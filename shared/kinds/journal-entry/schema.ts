// Body of POST /api/v1/cli/ledger/entries/stage (docs/reference/http-api.md "Journal entry stage"):
// one new ledger entry, optionally booking a bank transaction and attaching an inbox document.
// The lines' own rules (at least two, one side each, balanced) are the planner's refusals with
// their codes (plan.ts), not schema errors.
import type { FromSchema } from 'json-schema-to-ts';
import { currency, id, isoDate, nonNegativeMinor, text } from '../../schemas/common.js';
import { LEDGER_ACCOUNT_CODE_MAX_LENGTH, LEDGER_ACCOUNT_CODE_PATTERN } from '../../domain/chart-of-accounts.js';
import { dryRunResultSchema, planHash as planHashSchema, stagedFields } from '../../schemas/staging-results.js';

/** The most lines one entry may have (a books file's bound). */
export const JOURNAL_ENTRY_MAX_LINES = 500;

const line = {
  type: 'object',
  additionalProperties: false,
  properties: {
    account: {
      type: 'string',
      minLength: 1,
      maxLength: LEDGER_ACCOUNT_CODE_MAX_LENGTH,
      pattern: LEDGER_ACCOUNT_CODE_PATTERN,
      description: 'A ledger account code (of the chart of accounts, when the organisation has one).',
    },
    debit_minor: nonNegativeMinor,
    credit_minor: nonNegativeMinor,
  },
  required: ['account', 'debit_minor', 'credit_minor'],
} as const;

export const journalEntryStageRequestSchema = {
  title: 'Journal entry stage request',
  type: 'object',
  additionalProperties: false,
  properties: {
    entry_date: { ...isoDate, description: 'The entry date; must be after the lock date.' },
    description: text(1000),
    reference: { ...text(200), description: 'The document number booked (invoice, receipt, fee notice).' },
    counterparty_id: { ...id, description: 'Required, as in the books (the counterparty of a bank fee is the bank).' },
    currency: { ...currency, description: "The base currency, or the bank transaction's." },
    lines: {
      type: 'array',
      maxItems: JOURNAL_ENTRY_MAX_LINES,
      items: line,
      description: 'At least two; each with exactly one side above 0; Σ debits = Σ credits.',
    },
    bank_transaction_id: {
      ...id,
      description: 'Books this transaction: applying links it to the entry for what it has left unlinked.',
    },
    document_id: { ...id, description: 'Attaches this open inbox document: applying marks it `booked`.' },
    note: {
      ...text(1000),
      minLength: 1,
      description: 'For the reviewer; kept in the plan, and not part of the entry id.',
    },
  },
  required: ['entry_date', 'description', 'reference', 'counterparty_id', 'currency', 'lines'],
} as const;

/** The body once it has passed `journalEntryStageRequestSchema` (the job's input). */
export type JournalEntryStageInput = FromSchema<typeof journalEntryStageRequestSchema>;

// --- its answers (docs/reference/http-api.md §13.2, the plan of a journal entry) ---------------

const str = { type: 'string' } as const;
const integer = { type: 'integer' } as const;
const nullableStr = { anyOf: [str, { type: 'null' }] } as const;
const object = (properties: Record<string, object>, extra: object = {}) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties, ...extra }) as const;

export const journalEntryPlanSchema = object(
  {
    ledger_entry_id: { ...str, description: 'Derived from the request: `le_` + 24 hex digits.' },
    entry: object({
      entry_date: { type: 'string', format: 'date' },
      description: str,
      reference: str,
      counterparty_id: str,
      currency: str,
      lines: {
        type: 'array',
        items: object({
          account: str,
          account_name: { ...nullableStr, description: "The account's name in the chart; null without one." },
          debit_minor: integer,
          credit_minor: integer,
        }),
      },
    }),
    debit_total_minor: integer,
    credit_total_minor: integer,
    settlement_minor: { ...integer, description: 'Σ(debit − credit) of the lines on the settlement accounts.' },
    bank_link: {
      anyOf: [
        object({
          bank_transaction_id: str,
          bank_account_id: str,
          transaction_amount_minor: integer,
          linked_before_minor: integer,
          amount_minor: { ...integer, description: 'The link apply creates: what the transaction had left unlinked.' },
        }),
        { type: 'null' },
      ],
    },
    document_id: { ...nullableStr, description: 'The inbox document apply marks `booked`.' },
    note: nullableStr,
  },
  { title: 'JournalEntryPlan' },
);

export const journalEntryResultSchema = object(
  { ...stagedFields, plan: journalEntryPlanSchema, plan_hash: planHashSchema },
  { title: 'JournalEntryStageResult' },
);

export const journalEntryDryRunSchema = dryRunResultSchema('JournalEntryDryRunResult', journalEntryPlanSchema);
