// JSON schemas of the envelope every answer with a body has (shared/envelope.ts,
// docs/reference/http-api.md "Walk-through by example"). The OpenAPI document wraps each route's `data`
// schema in these, and lists the error codes each status can carry.
import { API_VERSION } from '../contract/envelope.js';
import { ERROR_TABLE, type ErrorCode } from '../errors.js';

const operationName = {
  anyOf: [{ type: 'string', maxLength: 100 }, { type: 'null' }],
  description: 'The operation answered, e.g. `ledger_reversal.stage`; null when no route matched.',
} as const;
const requestId = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: "The request id; a replayed answer keeps the original request's id.",
} as const;

export const warningSchema = {
  title: 'Warning',
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'Stable snake_case code, e.g. `already_staged`, `left_out_unreconciled`.' },
    message: { type: 'string' },
    details: { type: 'object' },
  },
} as const;

export const fieldErrorSchema = {
  title: 'FieldError',
  type: 'object',
  additionalProperties: false,
  required: ['pointer', 'message'],
  properties: {
    pointer: {
      type: 'string',
      description: 'JSON pointer into the request: `/field` for the body, `/query/x`, `/path/x`, `/headers/x`.',
    },
    message: { type: 'string' },
  },
} as const;

/** A success envelope around `data`. */
export function successEnvelopeSchema(title: string, data: object): object {
  return {
    title,
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'api_version', 'operation', 'request_id', 'data', 'warnings'],
    properties: {
      ok: { const: true },
      api_version: { const: API_VERSION },
      operation: operationName,
      request_id: requestId,
      data,
      warnings: { type: 'array', items: warningSchema },
    },
  };
}

/** An error envelope whose `error.code` is one of `codes` (all of one HTTP status). */
export function errorEnvelopeSchema(codes: readonly ErrorCode[]): object {
  const statuses = [...new Set(codes.map((c) => ERROR_TABLE[c].status))];
  return {
    type: 'object',
    additionalProperties: false,
    required: ['ok', 'api_version', 'operation', 'request_id', 'error'],
    properties: {
      ok: { const: false },
      api_version: { const: API_VERSION },
      operation: operationName,
      request_id: requestId,
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'status', 'retryable', 'message', 'details'],
        properties: {
          code: { enum: [...codes] },
          status: statuses.length === 1 ? { const: statuses[0] } : { enum: statuses },
          retryable: { type: 'boolean', description: 'Whether the same call may succeed later, unchanged.' },
          message: { type: 'string' },
          details: { type: 'object' },
          errors: {
            type: 'array',
            items: fieldErrorSchema,
            description: 'Each problem of a `validation_failed` answer.',
          },
        },
      },
    },
  };
}
