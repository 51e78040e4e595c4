// The OpenAPI 3.1 document of the API, built from the route table
// (shared/contract/routes.ts) and the same JSON schema objects the routes compile with
// Ajv: one source of truth. Served at GET /api/v1/openapi.json and written to
// docs/openapi.json by `npm run openapi`.
import { inboxResolveStageRequestSchema } from '../kinds/inbox-duplicates-resolve/schema.js';
import { inboxResolvePlanSchema, inboxResolveResultSchema } from './staging-results.js';
import { API_VERSION } from '../contract/envelope.js';
import { ERROR_TABLE, type ErrorCode } from '../errors.js';
import { API_ROUTES, type ResponseHeader, type RouteContract } from '../contract/routes.js';
import { errorEnvelopeSchema, fieldErrorSchema, successEnvelopeSchema, warningSchema } from './envelope.js';
import { inboxDuplicatesResponseSchema } from './inbox-duplicates.js';
import { linkRepairStageRequestSchema } from '../kinds/ledger-link-repair/schema.js';
import { reconcileStageRequestSchema } from '../kinds/bank-reconcile/schema.js';
import { reversalStageRequestSchema } from '../kinds/ledger-reversal/schema.js';
import {
  applyBodySchema,
  approveBodySchema,
  rejectBodySchema,
  stagedListSchema,
  stagedOperationSchema,
} from './staged-operations.js';
import {
  pendingResultSchema,
  reconcilePlanSchema,
  reconcileResultSchema,
  repairActionSchema,
  repairPlanSchema,
  repairResultSchema,
  repairStagedResultSchema,
  reversalPlanSchema,
  reversalResultSchema,
} from './staging-results.js';

type Json = Record<string, unknown>;

const HEADER_SCHEMAS: Record<ResponseHeader | 'X-Request-Id', Json> = {
  'X-Request-Id': {
    description: 'The request id: the incoming X-Request-Id when well formed, else a new one. On every response.',
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  Location: {
    description: 'The staged operation (201, or 200 for one already pending) or the job to poll (202).',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before polling or retrying.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Preference-Applied': {
    description: 'What the API honoured of `Prefer`: the wait applied (`wait=N`), `return=minimal`, or both.',
    schema: { type: 'string', pattern: '^(wait=[0-9]+|return=minimal|wait=[0-9]+, return=minimal)$' },
  },
};

const REQUEST_ID_PARAM = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Your own id for this request (1–128 of `A-Za-z0-9._:-`); otherwise the API makes one. It is echoed in the header and in every log line.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};
const STAGING_PARAMS = [
  {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'The same key, actor and body answer the original response (Idempotent-Replayed: true); the same key with another body is 422 `idempotency_key_reused`. Kept 24 hours. 1–255 printable ASCII characters; HTTP drops spaces at either end, so the key neither starts nor ends with one.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$' },
  },
  {
    name: 'Prefer',
    in: 'header',
    required: false,
    description:
      "`wait=N`: wait up to N seconds for the job (capped by the server's STAGE_WAIT_MAX_MS) before answering 202. `return=minimal` (approve, reject and apply; other calls answer whole): the operation without its plan, preconditions and context.",
    schema: { type: 'string', pattern: '^(wait=[0-9]{1,7}|return=minimal|wait=[0-9]{1,7}, return=minimal)$' },
  },
];
/** GET /jobs/{job_id}: the answer of an approve, reject or apply job as `Prefer: return=minimal` gives it. */
const JOB_PARAMS = [
  {
    name: 'Prefer',
    in: 'header',
    required: false,
    description:
      '`return=minimal`: an approve, reject or apply job answers its operation without its plan, preconditions and context; other answers are whole.',
    schema: { type: 'string', pattern: '^return=minimal$' },
  },
];

const JSON_TYPE = 'application/json';

/**
 * Schemas listed once under components.schemas and referenced by `$ref`
 * wherever the very same object appears (matched by identity, so a schema
 * spread into a new object stays inline).
 */
const NAMED: Array<[string, object]> = [
  ['ReconcileStageRequest', reconcileStageRequestSchema],
  ['LinkRepairStageRequest', linkRepairStageRequestSchema],
  ['ReversalStageRequest', reversalStageRequestSchema],
  ['ReconcileStageResult', reconcileResultSchema],
  ['ReconcilePlan', reconcilePlanSchema],
  ['RepairStageResult', repairResultSchema],
  ['RepairStagedResult', repairStagedResultSchema],
  ['RepairPlan', repairPlanSchema],
  ['RepairAction', repairActionSchema],
  ['ReversalStageResult', reversalResultSchema],
  ['ReversalPlan', reversalPlanSchema],
  ['PendingResult', pendingResultSchema],
  ['ApproveRequest', approveBodySchema],
  ['RejectRequest', rejectBodySchema],
  ['ApplyRequest', applyBodySchema],
  ['StagedOperation', stagedOperationSchema],
  ['StagedOperationsPage', stagedListSchema],
  ['InboxDuplicatesPage', inboxDuplicatesResponseSchema],
  ['Warning', warningSchema],
  ['FieldError', fieldErrorSchema],
  ['ErrorEnvelope', errorEnvelopeSchema(Object.keys(ERROR_TABLE) as ErrorCode[])],
  ['InboxResolveStageRequest', inboxResolveStageRequestSchema],
  ['InboxResolveStageResult', inboxResolveResultSchema],
  ['InboxResolvePlan', inboxResolvePlanSchema],
];
const NAME_OF = new Map<object, string>(NAMED.map(([name, schema]) => [schema, name]));
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A copy of `value` in which every named schema below the top is a `$ref`. */
function withRefs(value: unknown, top = true): unknown {
  if (value === null || typeof value !== 'object') return value;
  const name = NAME_OF.get(value);
  if (name && !top) return ref(name);
  if (Array.isArray(value)) return value.map((v) => withRefs(v, false));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRefs(v, false)]));
}

/** An error envelope narrowed to the codes one status of one route can carry. */
function errorEnvelopeFor(codes: readonly ErrorCode[]): Json {
  const status = ERROR_TABLE[codes[0]!].status;
  return {
    allOf: [
      ref('ErrorEnvelope'),
      { properties: { error: { properties: { code: { enum: [...codes] }, status: { const: status } } } } },
    ],
  };
}

export function buildOpenApiDocument(routes: readonly RouteContract[] = API_ROUTES): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operationOf(route);
  }
  return withRefs({
    openapi: '3.1.0',
    info: {
      title: 'bookstage API',
      version: API_VERSION,
      description: [
        'Stage bookkeeping changes, review and apply them, and read the inbox duplicate overview.',
        'Every answer with a body is an envelope: `{ok: true, api_version, operation, request_id, data, warnings}` or `{ok: false, api_version, operation, request_id, error: {code, status, retryable, message, details, errors?}}`.',
        'Amounts are integer minor units; dates `YYYY-MM-DD`; times ISO 8601 UTC. Unknown fields and query parameters are refused (400 `validation_failed`, each problem with a JSON pointer).',
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'staging', description: 'Plans written as staged operations; nothing in the books changes.' },
      {
        name: 'review',
        description:
          'Review and apply staged operations: list, show, approve, reject, apply (docs/design/staged-lifecycle.md).',
      },
      { name: 'reads', description: 'Read-only views.' },
      {
        name: 'events',
        description: 'The event feed and signed webhooks of staged-operation transitions (docs/reference/webhooks.md).',
      },
      { name: 'meta', description: 'Health and this document.' },
    ],
    security: [{ bearer: [] }],
    components: {
      schemas: Object.fromEntries(NAMED.map(([name, schema]) => [name, withRefs(schema)])),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API token (`bst_…`), bound to one organisation, one actor and scopes: `npm run admin -- tokens create`.',
        },
      },
    },
    paths,
  }) as Json;
}

function operationOf(route: RouteContract): Json {
  const op: Json = {
    operationId: route.operation,
    summary: route.summary,
    description: route.auth?.scope ? `${route.description}\n\nScope: \`${route.auth.scope}\`.` : route.description,
    tags: route.tags,
  };
  if (!route.auth) op.security = [];
  const parameters = [
    ...pathParameters(route),
    ...queryParameters(route),
    REQUEST_ID_PARAM,
    ...(route.staging ? STAGING_PARAMS : []),
    ...(route.operation === 'jobs.show' ? JOB_PARAMS : []),
  ];
  op.parameters = parameters;
  if (route.body) {
    op.requestBody = { required: route.body.required, content: { [JSON_TYPE]: { schema: route.body.schema } } };
  }
  if (route.rawBody) {
    op.requestBody = {
      required: true,
      description: `${route.rawBody.description} At most ${route.rawBody.limitBytes} bytes.`,
      content: {
        'application/octet-stream': {
          schema: { type: 'string', format: 'binary', maxLength: route.rawBody.limitBytes },
        },
      },
    };
  }
  op.responses = responsesOf(route);
  return op;
}

function pathParameters(route: RouteContract): Json[] {
  const props = route.pathParams?.schema.properties ?? {};
  return Object.entries(props).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    ...describedSchema(schema),
  }));
}

function queryParameters(route: RouteContract): Json[] {
  const required = new Set(route.query?.required ?? []);
  return Object.entries(route.query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...describedSchema(schema),
  }));
}

/** A parameter carries its description beside the schema. */
function describedSchema(schema: object): Json {
  const { description, ...rest } = schema as Json;
  return description === undefined ? { schema: rest } : { description, schema: rest };
}

function headersOf(names: readonly ResponseHeader[]): Json {
  const headers: Json = { 'X-Request-Id': { ...HEADER_SCHEMAS['X-Request-Id'], required: true } };
  for (const name of names) headers[name] = HEADER_SCHEMAS[name];
  return headers;
}

function responsesOf(route: RouteContract): Json {
  const responses: Json = {};
  if (route.rawSuccess) {
    responses['200'] = {
      description: route.rawSuccess.description,
      headers: headersOf([]),
      content: { [route.rawSuccess.mediaType ?? JSON_TYPE]: { schema: route.rawSuccess.schema } },
    };
  }
  for (const [status, answer] of Object.entries(route.success)) {
    const response: Json = {
      description: answer.description,
      headers: headersOf(answer.headers ?? []),
      content: { [JSON_TYPE]: { schema: successEnvelopeSchema(`${route.operation} ${status}`, answer.data) } },
    };
    if (status === '202' && route.followsJob) {
      response.links = {
        GetJob: {
          operationId: 'jobs.show',
          parameters: { job_id: '$response.body#/data/job_id' },
          description: 'Poll the job until it is no longer 202.',
        },
      };
    }
    responses[status] = response;
  }
  for (const [status, codes] of byStatus(route.errors)) {
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      headers: headersOf(status === 503 || status === 429 ? ['Retry-After'] : []),
      content: { [JSON_TYPE]: { schema: errorEnvelopeFor(codes) } },
    };
  }
  return responses;
}

function byStatus(codes: readonly ErrorCode[]): Array<[number, ErrorCode[]]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b);
}
