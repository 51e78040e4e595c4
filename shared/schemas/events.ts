// The event feed and webhook endpoints (docs/reference/webhooks.md): query, path and
// body schemas, and the `data` each answers. Query strings arrive as
// strings; routes convert `limit` (api/query-string.ts) before validating.
import { EVENT_TYPES } from '../domain/events.js';
import { stagedOperationSchema } from './staged-operations.js';
import { text } from './common.js';

export const EVENTS_DEFAULT_LIMIT = 20;
export const EVENTS_MAX_LIMIT = 100;
export const DELIVERIES_DEFAULT_LIMIT = 50;
export const DELIVERIES_MAX_LIMIT = 200;
export const EVENTS_NUMERIC_PARAMS = ['limit'] as const;

const cursor = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const limit = (max: number, dflt: number) =>
  ({ type: 'integer', minimum: 1, maximum: max, description: `Items per page (default ${dflt}).` }) as const;
const eventType = { enum: EVENT_TYPES } as const;

export const eventsQuerySchema = {
  title: 'Events query',
  type: 'object',
  additionalProperties: false,
  properties: {
    after: {
      ...cursor,
      description:
        'The next_cursor of the previous page (same `type`); without it the feed starts at its oldest retained event.',
    },
    type: { ...eventType, description: 'Only events of this type.' },
    limit: limit(EVENTS_MAX_LIMIT, EVENTS_DEFAULT_LIMIT),
  },
} as const;

export interface EventsQueryParams {
  after?: string;
  type?: (typeof EVENT_TYPES)[number];
  limit?: number;
}

// An event carries no amount: it is derived when the operation is answered (docs/reference/webhooks.md).
const LEFT_OUT: readonly string[] = ['plan', 'preconditions', 'amount_minor', 'currency'];
const {
  plan: _plan,
  preconditions: _preconditions,
  amount_minor: _amount,
  currency: _currency,
  ...eventOperationProperties
} = stagedOperationSchema.properties;

/** One event: also the body of a webhook delivery. */
export const eventSchema = {
  title: 'Event',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'created_at', 'sequence', 'data'],
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9a-f]{24}$' },
    type: eventType,
    created_at: { type: 'string' },
    sequence: { type: 'integer', minimum: 1 },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['staged_operation'],
      properties: {
        staged_operation: {
          title: 'Staged operation (event view)',
          description:
            'The operation as the transition left it: what GET /api/v1/cli/staged-operations/{id} answers, without `plan`, `preconditions`, `amount_minor` and `currency`.',
          type: 'object',
          additionalProperties: false,
          required: stagedOperationSchema.required.filter((k) => !LEFT_OUT.includes(k)),
          properties: eventOperationProperties,
        },
      },
    },
  },
} as const;

export const eventsPageSchema = {
  title: 'Events page',
  type: 'object',
  additionalProperties: false,
  required: ['items', 'next_cursor'],
  properties: {
    items: { type: 'array', maxItems: EVENTS_MAX_LIMIT, items: eventSchema },
    next_cursor: {
      type: 'string',
      description: 'Where the next page starts, also when this one is empty: keep asking with it to follow the feed.',
    },
  },
} as const;

export const webhookEndpointParamsSchema = {
  title: 'Webhook endpoint path',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 68, pattern: '^whe_[0-9a-f]{1,64}$' } },
} as const;

export const webhookEndpointCreateSchema = {
  title: 'Create a webhook endpoint',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 8,
      maxLength: 2048,
      description: 'An `https` URL on a public address (docs/reference/webhooks.md "Safety").',
    },
    event_types: {
      type: 'array',
      uniqueItems: true,
      maxItems: EVENT_TYPES.length,
      items: eventType,
      description: 'The types it receives; absent or empty: all.',
    },
    description: { ...text(500), description: 'Free text for people.' },
  },
} as const;

export interface WebhookEndpointCreate {
  url: string;
  event_types?: string[];
  description?: string;
}

const endpointProperties = {
  id: { type: 'string' },
  url: { type: 'string' },
  event_types: { type: 'array', items: eventType },
  description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  created_by: { type: 'string' },
  created_at: { type: 'string' },
  delivered_through: { type: 'integer', description: 'The sequence of the last event delivered or given up.' },
  retry: {
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['event_id', 'sequence', 'attempts', 'next_at'],
        properties: {
          event_id: { type: 'string' },
          sequence: { type: 'integer' },
          attempts: { type: 'integer' },
          next_at: { type: 'string' },
        },
      },
    ],
  },
} as const;
const endpointRequired = [
  'id',
  'url',
  'event_types',
  'description',
  'created_by',
  'created_at',
  'delivered_through',
  'retry',
] as const;

export const webhookEndpointSchema = {
  title: 'Webhook endpoint',
  type: 'object',
  additionalProperties: false,
  required: endpointRequired,
  properties: endpointProperties,
} as const;

export const webhookEndpointCreatedSchema = {
  title: 'Webhook endpoint, with its secret',
  type: 'object',
  additionalProperties: false,
  required: [...endpointRequired, 'secret'],
  properties: {
    ...endpointProperties,
    secret: { type: 'string', description: 'The signing secret. Shown this once; store it.' },
  },
} as const;

export const webhookEndpointListSchema = {
  title: 'Webhook endpoints',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', items: webhookEndpointSchema } },
} as const;

export const webhookEndpointDeletedSchema = {
  title: 'Webhook endpoint deleted',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'deleted'],
  properties: { id: { type: 'string' }, deleted: { const: true } },
} as const;

export const deliveriesQuerySchema = {
  title: 'Webhook deliveries query',
  type: 'object',
  additionalProperties: false,
  properties: { limit: limit(DELIVERIES_MAX_LIMIT, DELIVERIES_DEFAULT_LIMIT) },
} as const;

export const webhookDeliveriesSchema = {
  title: 'Webhook delivery attempts',
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      maxItems: DELIVERIES_MAX_LIMIT,
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'event_id',
          'event_type',
          'sequence',
          'attempt',
          'at',
          'outcome',
          'status_code',
          'error',
          'duration_ms',
          'next_retry_at',
        ],
        properties: {
          id: { type: 'string' },
          event_id: { type: 'string' },
          event_type: eventType,
          sequence: { type: 'integer' },
          attempt: { type: 'integer' },
          at: { type: 'string' },
          outcome: { enum: ['delivered', 'failed', 'given_up'] },
          status_code: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
          error: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          duration_ms: { type: 'integer' },
          next_retry_at: {
            anyOf: [{ type: 'string' }, { type: 'null' }],
            description: 'When the event is tried again (failed attempts only).',
          },
        },
      },
    },
  },
} as const;
