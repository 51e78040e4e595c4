// The pieces the route table's entries share (shared/contract/routes.ts and each
// staged kind's route entry in shared/kinds/): the route's shape, the error
// sets every route of a family answers, and the staging answers' headers.
import type { ErrorCode } from '../errors.js';
import type { TokenScope } from '../domain/token-scopes.js';
import { pendingResultSchema } from '../schemas/staging-results.js';

/** A success answer: its `data` schema, and the headers it carries beside X-Request-Id. */
export interface SuccessAnswer {
  description: string;
  data: object;
  headers?: ResponseHeader[];
}

export type ResponseHeader = 'Location' | 'Retry-After' | 'Idempotent-Replayed' | 'Preference-Applied';

export interface RouteContract {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: `{param}`. */
  path: string;
  operation: string;
  summary: string;
  description: string;
  tags: string[];
  /** null: no token needed. */
  auth: { scope: TokenScope | null } | null;
  pathParams?: { schema: { properties: Record<string, object>; required?: readonly string[] } };
  query?: { properties: Record<string, object>; required?: readonly string[] };
  body?: { schema: object; required: boolean };
  /** A raw (non-JSON) body of any content type: the statement import's file (docs/guide/statement-import.md). */
  rawBody?: { description: string; limitBytes: number };
  /** Idempotency-Key and Prefer: wait=N. */
  staging?: boolean;
  success: Partial<Record<200 | 201 | 202, SuccessAnswer>>;
  /** A raw (non-envelope) answer: JSON for the unversioned helpers, or another media type (the books export's text). */
  rawSuccess?: { description: string; schema: object; mediaType?: string };
  errors: ErrorCode[];
  /** OpenAPI links from the 202 answer (stateful testing follows them). */
  followsJob?: boolean;
  /** A refusal the API answers before the body's schema, null for none (a bank match's duplicate pair). */
  bodyRefusal?: (body: unknown) => { code: ErrorCode; details: Record<string, unknown> } | null;
}

/** Errors any authenticated /api route can answer (a lost Redis or MongoDB is 503 dependency_unavailable; too many requests with one token 429). */
export const AUTHENTICATED: ErrorCode[] = [
  'unauthenticated',
  'rate_limited',
  'internal',
  'service_unavailable',
  'dependency_unavailable',
];
/** Errors of any route that reads a JSON body or the staging headers. */
export const BODY: ErrorCode[] = [
  'validation_failed',
  'malformed_json',
  'malformed_body_encoding',
  'payload_too_large',
  'unsupported_media_type',
];
/** Errors of the shared job path (api/stage-handler.ts): a key reused, a job that failed for good. */
export const JOB_PATH: ErrorCode[] = ['idempotency_key_reused', 'job_failed', 'outcome_unknown'];
/** Errors of the staging calls: the job path and the pending-plan conflict (docs/reference/http-api.md §6.3). */
export const STAGING: ErrorCode[] = [...JOB_PATH, 'pending_operation'];

/** The 200 of a dry run (docs/reference/http-api.md §6.6), beside each staging call's own 200. */
export const DRY_RUN_200 =
  'With `?dry_run=true`: `data.dry_run` true, the plan, its hash and summary a staging would have; nothing is stored.';
export const STAGED_HEADERS: ResponseHeader[] = ['Location', 'Idempotent-Replayed', 'Preference-Applied'];
export const PENDING: SuccessAnswer = {
  description:
    'The job outlived the wait; it goes on. Poll the `Location` (GET /api/v1/cli/jobs/{job_id}) or retry with the same Idempotency-Key.',
  data: pendingResultSchema,
  headers: ['Location', 'Retry-After', 'Preference-Applied'],
};

export const unique = (codes: ErrorCode[]): ErrorCode[] => [...new Set(codes)];
