// The staged-operation endpoints (docs/design/staged-lifecycle.md): path, query and
// body schemas, and the `data` each answers. Query strings arrive as strings;
// the route converts `limit` (api/query-string.ts) before validating.
import { STAGED_KINDS } from '../domain/staged-kind.js';
import { STAGED_STATUSES } from '../domain/staged-transitions.js';
import { id, SAFE_TEXT_PATTERN } from './common.js';
import { planContextSchema } from './plan-context.js';
import { approvalStateSchema } from './approval-state.js';
import { operationAmountSchema, operationCurrencySchema } from './operation-amount.js';

export const STAGED_LIST_DEFAULT_LIMIT = 20;
export const STAGED_LIST_MAX_LIMIT = 100;
export const NOTE_MAX_LENGTH = 1000;

const statuses = STAGED_STATUSES;
const kinds = STAGED_KINDS;
const stagedId = { type: 'string', maxLength: 68, pattern: '^stg_[A-Za-z0-9]{1,64}$' } as const;
const note = { type: 'string', minLength: 1, maxLength: NOTE_MAX_LENGTH, pattern: SAFE_TEXT_PATTERN } as const;

export const stagedOperationParamsSchema = {
  title: 'Staged operation path',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: stagedId },
} as const;

export const stagedListQuerySchema = {
  title: 'Staged operations query',
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { enum: statuses },
    kind: { enum: kinds },
    created_by: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:@-]{1,128}$' },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: STAGED_LIST_MAX_LIMIT,
      description: `Operations per page (default ${STAGED_LIST_DEFAULT_LIMIT}).`,
    },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'The next_cursor of the previous page, with the same filters.',
    },
  },
} as const;

export interface StagedListQueryParams {
  status?: (typeof statuses)[number];
  kind?: (typeof kinds)[number];
  created_by?: string;
  limit?: number;
  cursor?: string;
}

export const STAGED_LIST_NUMERIC_PARAMS = ['limit'] as const;

export const approveBodySchema = {
  title: 'Approve a staged operation',
  type: 'object',
  additionalProperties: false,
  properties: { note },
} as const;

export const rejectBodySchema = {
  title: 'Reject a staged operation',
  type: 'object',
  additionalProperties: false,
  required: ['note'],
  properties: { note },
} as const;

export const applyBodySchema = {
  title: 'Apply a staged operation',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const;

const history = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['at', 'actor', 'from', 'to', 'note', 'request_id'],
    properties: {
      at: { type: 'string' },
      actor: { type: 'string' },
      from: { anyOf: [{ enum: statuses }, { type: 'null' }] },
      to: { enum: statuses },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      request_id: { type: 'string' },
    },
  },
} as const;

/** `data` of show, approve, reject and apply; each item of a list. */
/** plan, preconditions and context: always there but in an answer to `Prefer: return=minimal` (docs/reference/http-api.md §6.4). */
const LEFT_OUT_WHEN_MINIMAL =
  'Left out of the answer of an approve, reject or apply call (or its job) sent with `Prefer: return=minimal`.';

export const stagedOperationSchema = {
  title: 'Staged operation',
  type: 'object',
  additionalProperties: false,
  required: [
    'staged_operation_id',
    'kind',
    'status',
    'created_by',
    'created_at',
    'expires_at',
    'input',
    'plan_hash',
    'summary',
    'amount_minor',
    'currency',
    'history',
    'result',
  ],
  properties: {
    staged_operation_id: stagedId,
    kind: { enum: kinds },
    status: { enum: statuses },
    created_by: { type: 'string' },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
    input: { type: 'object' },
    plan: { type: 'object', description: LEFT_OUT_WHEN_MINIMAL },
    plan_hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    summary: { type: 'object' },
    amount_minor: operationAmountSchema,
    currency: operationCurrencySchema,
    preconditions: {
      description: LEFT_OUT_WHEN_MINIMAL,
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['collection', 'id', 'version'],
        properties: { collection: { type: 'string' }, id, version: { type: 'integer' } },
      },
    },
    history,
    result: { anyOf: [{ type: 'object' }, { type: 'null' }] },
    context: {
      ...planContextSchema,
      description: `${planContextSchema.description} In show, approve, reject and apply; not in list items. ${LEFT_OUT_WHEN_MINIMAL}`,
    },
    reverts: {
      ...stagedId,
      description: 'A revert: the operation it reverts (docs/design/staged-lifecycle.md "Reverts").',
    },
    reverted_by: { ...stagedId, description: 'Once a revert of this operation is applied: that revert.' },
    approval: approvalStateSchema,
  },
} as const;

export const stagedListSchema = {
  title: 'Staged operations page',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', maxItems: STAGED_LIST_MAX_LIMIT, items: stagedOperationSchema },
    next_cursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
} as const;
