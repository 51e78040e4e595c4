// The closed periods' reads (docs/design/staged-lifecycle.md "Closed periods"):
// query, path and `data` schemas of GET /api/v1/cli/periods and
// GET /api/v1/cli/periods/{through}.
import type { FromSchema } from 'json-schema-to-ts';
import { BOOKS_MAX_LIMIT } from './books-read.js';
import { isoDate } from './common.js';
import { CURSOR_MAX_LENGTH } from './inbox-duplicates.js';

export const periodsQuerySchema = {
  title: 'Closed periods query',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: BOOKS_MAX_LIMIT, description: 'Items per page (default 50).' },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: CURSOR_MAX_LENGTH,
      description: 'The next_cursor of the previous page, unchanged.',
    },
  },
} as const;
export type PeriodsQuery = FromSchema<typeof periodsQuerySchema>;

export const periodParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['through'],
  properties: { through: isoDate },
} as const;
export type PeriodParams = FromSchema<typeof periodParamsSchema>;

const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

export const closedPeriodSchema = {
  title: 'Closed period',
  type: 'object',
  additionalProperties: false,
  required: ['through', 'closed_at', 'approved_by', 'hash', 'staged_operation_id'],
  properties: {
    through: { ...isoDate, description: 'The last closed day.' },
    closed_at: { ...timestamp, description: 'When the apply of the close started.' },
    approved_by: { type: 'string', description: 'Who approved the close.' },
    hash: {
      ...hash,
      description:
        'Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the entries and bank transactions dated on or before `through`, as they were when the period was closed.',
    },
    staged_operation_id: { type: 'string', description: 'The period close that closed it.' },
  },
} as const;

export const closedPeriodPageSchema = {
  title: 'Closed periods page',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', maxItems: BOOKS_MAX_LIMIT, items: closedPeriodSchema },
    next_cursor: {
      anyOf: [{ type: 'string', maxLength: CURSOR_MAX_LENGTH }, { type: 'null' }],
      description: 'Pass as `cursor` for the next page; null on the last page.',
    },
  },
} as const;

export const periodCheckSchema = {
  title: 'Closed period check',
  type: 'object',
  additionalProperties: false,
  required: ['through', 'closed_at', 'approved_by', 'stored_hash', 'current_hash', 'intact'],
  properties: {
    through: isoDate,
    closed_at: timestamp,
    approved_by: { type: 'string' },
    stored_hash: { ...hash, description: 'The hash stored when the period was closed.' },
    current_hash: { ...hash, description: "The same hash of the period's records as they are now." },
    intact: { type: 'boolean', description: 'Whether the two hashes are equal: no record of the period changed.' },
  },
} as const;
export type PeriodCheck = FromSchema<typeof periodCheckSchema>;
