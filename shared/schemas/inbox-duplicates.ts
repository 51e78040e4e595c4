// GET /api/v1/cli/bookkeeping/inbox/duplicates (docs/reference/http-api.md §10, §13.4): the
// query and the `data` of the answer. Query strings arrive as strings; the
// route converts numeric ones (api/query-string.ts) before validating, so the
// schema states real types and Ajv never coerces.
import { extractedSchema } from './plan-context.js';

export const DUPLICATES_DEFAULT_LIMIT = 50;
export const DUPLICATES_MAX_LIMIT = 200;
export const CURSOR_MAX_LENGTH = 512;

export const inboxDuplicatesQuerySchema = {
  title: 'Inbox duplicates query',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: DUPLICATES_MAX_LIMIT,
      description: `Groups per page (default ${DUPLICATES_DEFAULT_LIMIT}).`,
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: CURSOR_MAX_LENGTH,
      description: 'The next_cursor of the previous page, unchanged; only valid with the same min_confidence.',
    },
    min_confidence: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Only groups whose confidence is at least this.',
    },
  },
} as const;

/** The query once converted and validated. */
export interface InboxDuplicatesQuery {
  limit?: number;
  cursor?: string;
  min_confidence?: number;
}

/** The query parameters that are numbers (converted from their string form before validation). */
export const INBOX_DUPLICATES_NUMERIC_PARAMS = ['limit', 'min_confidence'] as const;

const rule = { enum: ['same_file', 'same_invoice_number', 'same_amount_date_vendor'] } as const;
const confidence = { type: 'number', minimum: 0, maximum: 1 } as const;

/** `data` of a successful answer (§5.5 "Duplicates"). */
export const inboxDuplicatesResponseSchema = {
  title: 'Inbox duplicates page',
  type: 'object',
  additionalProperties: false,
  required: ['groups', 'next_cursor'],
  properties: {
    groups: {
      type: 'array',
      maxItems: DUPLICATES_MAX_LIMIT,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['group_id', 'confidence', 'canonical_document_id', 'documents'],
        properties: {
          group_id: { type: 'string', pattern: '^grp_[0-9a-f]{16}$' },
          dismissed_with: {
            type: 'array',
            description:
              'Present only when members were once resolved as not duplicates of each other: each such set, as its member ids in this group, sorted.',
            items: { type: 'array', minItems: 2, items: { type: 'string' } },
          },
          confidence,
          canonical_document_id: { type: 'string' },
          documents: {
            type: 'array',
            minItems: 2,
            description: 'Canonical first, then by received_at, id.',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['document_id', 'role', 'status', 'received_at', 'reasons'],
              properties: {
                document_id: { type: 'string' },
                role: { enum: ['canonical', 'duplicate'] },
                status: { enum: ['open', 'booked'] },
                received_at: { type: 'string' },
                file: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['name', 'mime', 'size'],
                  properties: { name: { type: 'string' }, mime: { type: 'string' }, size: { type: 'integer' } },
                },
                extracted: {
                  ...extractedSchema,
                  description:
                    'What was read from the document: vendor, tax id, invoice number and date, total, currency (each only when found).',
                },
                reasons: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 3,
                  description: 'One per rule tying the document to another member, strongest first.',
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['rule', 'with_document_id', 'confidence'],
                    properties: { rule, with_document_id: { type: 'string' }, confidence },
                  },
                },
              },
            },
          },
        },
      },
    },
    next_cursor: {
      anyOf: [{ type: 'string', maxLength: CURSOR_MAX_LENGTH }, { type: 'null' }],
      description: 'Pass as `cursor` for the next page; null on the last page.',
    },
  },
} as const;
