// Match suggestions of a bank transaction and their declines
// (docs/reference/http-api.md §8.2): the query, the decline body and the two
// answers.
import type { FromSchema } from 'json-schema-to-ts';
import { id, nonNegativeMinor } from './common.js';
import { bankTransactionSchema } from './books-read.js';

export const MATCH_SUGGESTIONS_DEFAULT_LIMIT = 5;
/** The most entries one decline names. */
export const MAX_DECLINED_ENTRIES = 20;

export const matchSuggestionsQuerySchema = {
  title: 'Match suggestions query',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 20,
      description: `How many suggestions at most; default ${MATCH_SUGGESTIONS_DEFAULT_LIMIT}.`,
    },
  },
} as const;
export type MatchSuggestionsQuery = FromSchema<typeof matchSuggestionsQuerySchema>;

export const matchDeclineBodySchema = {
  title: 'Match suggestion decline',
  description:
    'The entries (each never suggested again for this transaction, alone or in a set), or one document: exactly one of the two.',
  type: 'object',
  additionalProperties: false,
  properties: {
    ledger_entry_ids: { type: 'array', minItems: 1, maxItems: MAX_DECLINED_ENTRIES, uniqueItems: true, items: id },
    document_id: id,
  },
  oneOf: [
    { required: ['ledger_entry_ids'], properties: { ledger_entry_ids: { type: 'array' } } },
    { required: ['document_id'], properties: { document_id: { type: 'string' } } },
  ],
} as const;
export type MatchDeclineBody = FromSchema<typeof matchDeclineBodySchema>;

const str = { type: 'string' } as const;
const nullableStr = { anyOf: [str, { type: 'null' }] } as const;

const suggestionSchema = {
  title: 'Match suggestion',
  type: 'object',
  additionalProperties: false,
  required: ['entries', 'documents', 'amount_fit', 'score', 'signals'],
  properties: {
    entries: {
      type: 'array',
      description:
        'One entry, or a set of two or three of one counterparty, by id; `open_minor`: what its links leave open.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'open_minor'],
        properties: { id: str, open_minor: nonNegativeMinor },
      },
    },
    documents: {
      type: 'array',
      description: 'An open inbox document whose total is what the transaction has left (a receipt to attach).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'total_minor'],
        properties: { id: str, total_minor: nonNegativeMinor },
      },
    },
    amount_fit: {
      enum: ['exact', 'partial'],
      description: '`exact`: it settles exactly what the transaction has left.',
    },
    score: { type: 'number', minimum: 0, maximum: 1, description: 'The order as one number, for display.' },
    signals: {
      type: 'object',
      additionalProperties: false,
      required: ['reference', 'counterparty', 'date_days'],
      properties: {
        reference: { ...nullableStr, description: 'Which reference or invoice number the remittance text holds.' },
        counterparty: { ...nullableStr, description: '"same counterparty", "similar name: …", or null.' },
        date_days: {
          type: 'integer',
          minimum: 0,
          description: "Days between the booking date and the candidate's date.",
        },
      },
    },
  },
} as const;

export const matchSuggestionsSchema = {
  title: 'Match suggestions',
  type: 'object',
  additionalProperties: false,
  required: ['transaction', 'remaining_minor', 'suggestions', 'declined'],
  properties: {
    transaction: bankTransactionSchema,
    remaining_minor: { ...nonNegativeMinor, description: 'What the transaction has left unlinked.' },
    suggestions: { type: 'array', items: suggestionSchema, description: 'Best first.' },
    declined: { type: 'integer', minimum: 0, description: 'How many entries and documents were declined for it.' },
  },
} as const;

export const matchDeclineAnswerSchema = {
  title: 'Match suggestion decline answer',
  type: 'object',
  additionalProperties: false,
  required: ['bank_transaction_id', 'declined'],
  properties: {
    bank_transaction_id: str,
    declined: { type: 'integer', minimum: 0, description: "The transaction's declines, this one included." },
  },
} as const;
