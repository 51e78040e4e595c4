// The parts every staging call's route entry shares (docs/reference/http-api.md
// §6): POST under the `staging` tag with the staging headers, the answers 200
// (the same plan already pending, or a dry run), 201 (a new operation) and 202
// (still running, with the job's link), and the staging path's error sets. A
// kind's wire.ts states only what is its own.
import type { ErrorCode } from '../errors.js';
import type { TokenScope } from '../domain/token-scopes.js';
import {
  AUTHENTICATED,
  BODY,
  DRY_RUN_200,
  PENDING,
  STAGED_HEADERS,
  STAGING,
  unique,
  type RouteContract,
} from '../contract/route-parts.js';
import { stagingQuerySchema } from '../schemas/staging-query.js';
import { routeAt, type RouteOperation } from '../contract/route-paths.js';

/** What a raw (non-JSON) body can answer before the job: its query checked, its size, its encoding. */
const RAW_BODY: ErrorCode[] = ['validation_failed', 'payload_too_large', 'malformed_body_encoding'];

export interface StagingRouteSpec<Op extends RouteOperation> {
  /** Its path is the route table's (shared/contract/route-paths.ts). */
  operation: Op;
  summary: string;
  description: string;
  /** null: any valid token; the job checks the scope (a revert: the reverted kind's). */
  scope: TokenScope | null;
  pathParams?: NonNullable<RouteContract['pathParams']>;
  /** A JSON body (with the staging query), or a raw one with the query the route checks itself. */
  body:
    | NonNullable<RouteContract['body']>
    | { raw: NonNullable<RouteContract['rawBody']>; query: NonNullable<RouteContract['query']> };
  /** The 200: its own cases (before the dry run's sentence) and its data. */
  answered: { description: string; data: object };
  /** The 201's data, and what it may warn beside "a new staged operation". */
  created: { data: object; warnings?: string };
  /** The kind's own refusals. */
  refusals: readonly ErrorCode[];
  /** One of them answered before the body's schema (RouteContract `bodyRefusal`). */
  bodyRefusal?: RouteContract['bodyRefusal'];
}

export function stagingRoute<Op extends RouteOperation>(spec: StagingRouteSpec<Op>): RouteContract & { operation: Op } {
  const raw = 'raw' in spec.body ? spec.body : null;
  const created = 'A new staged operation (its URL in `Location`).';
  return {
    method: 'post',
    ...routeAt(spec.operation),
    summary: spec.summary,
    description: spec.description,
    tags: ['staging'],
    auth: { scope: spec.scope },
    ...(spec.pathParams ? { pathParams: spec.pathParams } : {}),
    ...(raw
      ? { query: raw.query, rawBody: raw.raw }
      : { query: stagingQuerySchema, body: spec.body as NonNullable<RouteContract['body']> }),
    staging: true,
    success: {
      200: {
        description: `${spec.answered.description} ${DRY_RUN_200}`,
        data: spec.answered.data,
        headers: STAGED_HEADERS,
      },
      201: {
        description: spec.created.warnings ? `${created} ${spec.created.warnings}` : created,
        data: spec.created.data,
        headers: STAGED_HEADERS,
      },
      202: PENDING,
    },
    errors: unique([
      ...AUTHENTICATED,
      'forbidden',
      ...(raw ? RAW_BODY : BODY),
      ...STAGING,
      ...spec.refusals,
      ...(spec.pathParams ? (['malformed_path'] as const) : []),
    ]),
    followsJob: true,
    ...(spec.bodyRefusal ? { bodyRefusal: spec.bodyRefusal } : {}),
  };
}
