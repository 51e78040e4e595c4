// The JSON Schemas of each MCP tool, built from its route's entry in
// shared/contract/routes.ts (one source: the objects the API validates
// with). Input: the route's path, query and body properties in one object,
// plus `idempotency_key` and `wait_seconds` for the calls that take those
// headers, and `dry_run` (a boolean) for the staging calls that take
// `?dry_run=true`. Output: the route's `data` schemas with `request_id` and
// `warnings` beside the fields, or a refusal (docs/guide/agents.md "Results").
import { errorEnvelopeSchema, warningSchema } from '../../../shared/schemas/envelope.js';
import type { ErrorCode } from '../../../shared/errors.js';
import type { RouteContract } from '../../../shared/contract/routes.js';

type Schema = Record<string, unknown>;

/** MCP hosts commonly give a tool call 60 s; the server's own wait stays below that (docs/guide/agents.md). */
export const MAX_WAIT_SECONDS = 50;

/** The Idempotency-Key header as a tool argument (docs/reference/http-api.md §6.2). */
export const idempotencyKeySchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description:
    "Any 1–255 printable ASCII characters. The same key with the same arguments never stages twice: it answers the first call's result. " +
    'Without one, the server makes one per call and reuses it only for its own retries.',
} as const;

/** Prefer: wait=N as a tool argument (docs/reference/http-api.md §6.4). */
export const waitSecondsSchema = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_WAIT_SECONDS,
  description:
    'How long the API may wait for the plan before answering outcome "pending" with a job_id (default: the server\'s, 10 s). 0 answers at once.',
} as const;

/** `?dry_run=true` as a tool argument (docs/reference/http-api.md §6.6). */
export const dryRunArgSchema = {
  type: 'boolean',
  description:
    'true: compute and answer the plan (with dry_run: true, its plan_hash, summary and warnings) without staging it: nothing is stored, no lock is taken, ' +
    'no idempotency_key is needed. The warning pending_operation names pending operations a real staging would meet.',
} as const;

const requestIdSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: "The API request id; a replayed answer keeps the original request's id.",
} as const;

/** The tool's arguments: path parameters, query parameters and body fields side by side (no route uses a name twice). */
export function inputSchemaFor(route: RouteContract): Schema {
  // A POST's query (a staging call's `dry_run`) is not a body field: it is offered below as its own argument.
  // A raw-body route (a statement file) takes its options in the query: they are the tool's arguments.
  const query = route.method === 'get' || route.rawBody ? route.query : undefined;
  const sources: Schema[] = [route.pathParams?.schema, query, route.body?.schema].filter(
    (s): s is Schema => s !== undefined,
  );
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const source of sources) {
    Object.assign(properties, source.properties);
    required.push(...((source.required as readonly string[] | undefined) ?? []));
  }
  if (route.staging)
    Object.assign(properties, { idempotency_key: idempotencyKeySchema, wait_seconds: waitSecondsSchema });
  if (route.method !== 'get' && route.query?.properties.dry_run) properties.dry_run = dryRunArgSchema;
  // A raw body (a statement file): its content as text or as base64, exactly one of them.
  if (route.rawBody) Object.assign(properties, rawBodyProperties(route.rawBody.limitBytes));
  // Top-level keywords (the title) of the last source, the body's when there is one.
  const schema: Schema = {
    ...(Object.assign({}, ...sources) as Schema),
    type: 'object',
    additionalProperties: false,
    properties,
  };
  if (route.rawBody)
    schema.oneOf = ['content', 'content_base64'].map((name) => ({
      required: [name],
      properties: { [name]: { type: 'string' } },
    }));
  if (required.length > 0) schema.required = required;
  else delete schema.required;
  return schema;
}

/** `schema` (an object, or a oneOf/anyOf of objects) with request_id and warnings beside its fields. */
function withRequestFields(schema: Schema): Schema {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) return { ...schema, [key]: (branches as Schema[]).map(withRequestFields) };
  }
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties) throw new Error(`a data schema without properties: ${JSON.stringify(schema).slice(0, 200)}`);
  return {
    ...schema,
    // A dry run's data has its own `warnings` (the envelope's list, the same): named once.
    required: [...new Set([...((schema.required as string[] | undefined) ?? []), 'request_id', 'warnings'])],
    properties: { ...properties, request_id: requestIdSchema, warnings: { type: 'array', items: warningSchema } },
  };
}

/**
 * A refusal: the envelope's `error` (code, status, retryable, message,
 * details, and `errors` for validation_failed) with the request id. A
 * refusal of the arguments before any request has no request id.
 */
export function refusalSchemaFor(route: RouteContract): Schema {
  const codes: ErrorCode[] = [...new Set<ErrorCode>([...route.errors, 'validation_failed'])];
  const envelope = errorEnvelopeSchema(codes) as {
    properties: { error: Schema & { properties: Record<string, unknown> } };
  };
  const error = envelope.properties.error;
  return { ...error, title: 'Refusal', properties: { ...error.properties, request_id: requestIdSchema } };
}

/** Every structuredContent the tool can return: each success `data` of the route (202 included), or a refusal. */
export function outputSchemaFor(route: RouteContract, title: string): Schema {
  const data = [...new Set(Object.values(route.success).map((answer) => answer.data))] as Schema[];
  return { title, type: 'object', anyOf: [...data.map(withRequestFields), refusalSchemaFor(route)] };
}

/** The file of a raw-body route as a tool argument (docs/guide/agents.md): text as it is, or any bytes as base64. */
function rawBodyProperties(limitBytes: number): Record<string, unknown> {
  return {
    content: {
      type: 'string',
      minLength: 1,
      maxLength: limitBytes,
      description: "The file's content as text (sent as UTF-8). For a file in another encoding, use content_base64.",
    },
    content_base64: {
      type: 'string',
      minLength: 1,
      maxLength: Math.ceil(limitBytes / 3) * 4,
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      description: "The file's bytes, base64-encoded.",
    },
  };
}
