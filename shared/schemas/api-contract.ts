// Every route the API serves, as data: method, path, operation, scope, the
// request schemas it validates with (the very objects the routes compile) and
// the answers it can give, each status with its `data` schema or its error
// codes. shared/schemas/openapi.ts turns this table into the OpenAPI
// document; test/http/openapi.test.ts checks it against the routes the app
// really serves, so a route added without an entry here fails the suite.
import type { ErrorCode } from '../errors.js';
import type { Scope } from '../storage/api-tokens.js';
import { inboxDuplicatesQuerySchema, inboxDuplicatesResponseSchema } from './inbox-duplicates.js';
import { linkRepairStageRequestSchema } from './link-repair-stage.js';
import { reconcileStageRequestSchema } from './reconcile-stage.js';
import { reversalStageParamsSchema, reversalStageRequestSchema } from './reversal-stage.js';
import {
  applyBodySchema, approveBodySchema, rejectBodySchema, stagedListQuerySchema, stagedListSchema, stagedOperationParamsSchema, stagedOperationSchema,
} from './staged-operations.js';
import {
  jobIdSchema, pendingResultSchema, reconcileResultSchema, repairResultSchema, repairStagedResultSchema, reversalResultSchema,
} from './staging-results.js';
import { whoamiSchema } from './whoami.js';

/** A success answer: its `data` schema, and the headers it carries beside X-Request-Id. */
export interface SuccessAnswer {
  description: string;
  data: object;
  headers?: ResponseHeader[];
}

export type ResponseHeader = 'Location' | 'Retry-After' | 'Idempotent-Replayed' | 'Preference-Applied';

export interface RouteContract {
  method: 'get' | 'post';
  /** OpenAPI form: `{param}`. */
  path: string;
  operation: string;
  summary: string;
  description: string;
  tags: string[];
  /** null: no token needed. */
  auth: { scope: Scope | null } | null;
  pathParams?: { schema: { properties: Record<string, object>; required?: readonly string[] } };
  query?: { properties: Record<string, object>; required?: readonly string[] };
  body?: { schema: object; required: boolean };
  /** Idempotency-Key and Prefer: wait=N. */
  staging?: boolean;
  success: Partial<Record<200 | 201 | 202, SuccessAnswer>>;
  /** A raw (non-envelope) JSON answer, for the unversioned helpers. */
  rawSuccess?: { description: string; schema: object };
  errors: ErrorCode[];
  /** OpenAPI links from the 202 answer (stateful testing follows them). */
  followsJob?: boolean;
}

/** Errors any authenticated /api route can answer (a lost Redis or MongoDB is 503 dependency_unavailable; too many requests with one token 429). */
const AUTHENTICATED: ErrorCode[] = ['unauthenticated', 'rate_limited', 'internal', 'service_unavailable', 'dependency_unavailable'];
/** Errors of any route that reads a JSON body or the staging headers. */
const BODY: ErrorCode[] = ['validation_failed', 'malformed_json', 'payload_too_large', 'unsupported_media_type'];
/** Errors of the shared job path (api/stage-handler.ts): a key reused, a job that failed for good. */
const JOB_PATH: ErrorCode[] = ['idempotency_key_reused', 'job_failed'];
/** Errors of the three staging calls: the job path and the pending-plan conflict (docs/reference/http-api.md §6.3). */
const STAGING: ErrorCode[] = [...JOB_PATH, 'pending_operation'];

const STAGED_HEADERS: ResponseHeader[] = ['Location', 'Idempotent-Replayed', 'Preference-Applied'];
const PENDING: SuccessAnswer = {
  description: 'The job outlived the wait; it goes on. Poll the `Location` (GET /api/v1/cli/jobs/{job_id}) or retry with the same Idempotency-Key.',
  data: pendingResultSchema,
  headers: ['Location', 'Retry-After', 'Preference-Applied'],
};

const REVERSAL_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'already_reversed', 'entry_is_reversal', 'reconciled_links', 'reversal_before_entry', 'period_locked'];
const REPAIR_ERRORS: ErrorCode[] = ['not_found'];
const RECONCILE_ERRORS: ErrorCode[] = [
  'not_found', 'currency_mismatch', 'statement_before_last_reconciliation', 'unknown_transactions', 'already_reconciled',
  'transaction_after_statement_end', 'unmatched_transactions', 'out_of_balance',
];

/** Review and apply refusals (docs/design/staged-lifecycle.md, rules in the order they are checked). */
const APPROVE_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'invalid_transition', 'self_approval_forbidden'];
const REJECT_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'invalid_transition'];
const APPLY_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'not_approved', 'invalid_transition', 'stale_plan', 'apply_failed'];
const LIFECYCLE_HEADERS: ResponseHeader[] = ['Idempotent-Replayed', 'Preference-Applied'];

const unique = (codes: ErrorCode[]): ErrorCode[] => [...new Set(codes)];

export const API_ROUTES: RouteContract[] = [
  {
    method: 'post',
    path: '/api/v1/cli/bank-matches/reconcile/stage',
    operation: 'bank_reconcile.stage',
    summary: 'Stage a bank reconciliation',
    description: 'Checks a bank statement against the account\'s transactions and stages the reconciliation for review. Nothing in the books changes until it is approved and applied.',
    tags: ['staging'],
    auth: { scope: 'bank:stage' },
    body: { schema: reconcileStageRequestSchema, required: true },
    staging: true,
    success: {
      200: { description: 'The very same plan was already pending for this account: that operation, with the warning `already_staged`.', data: reconcileResultSchema, headers: STAGED_HEADERS },
      201: { description: 'A new staged operation (its URL in `Location`). A warning `left_out_unreconciled` names unreconciled transactions the statement leaves out.', data: reconcileResultSchema, headers: STAGED_HEADERS },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...STAGING, ...RECONCILE_ERRORS]),
    followsJob: true,
  },
  {
    method: 'post',
    path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
    operation: 'ledger_link_repair.stage',
    summary: 'Stage a FIFO repair of ledger ↔ bank links',
    description: 'Re-links one counterparty\'s bank transactions on one account to its open ledger entries, oldest first, and stages the difference for review.',
    tags: ['staging'],
    auth: { scope: 'bank:stage' },
    body: { schema: linkRepairStageRequestSchema, required: true },
    staging: true,
    success: {
      200: { description: '`noop` (the links already follow FIFO), `blocked` (see `blockers`; nothing staged), or the very same plan already pending (`staged`, warning `already_staged`).', data: repairResultSchema, headers: STAGED_HEADERS },
      201: { description: 'A new staged operation (its URL in `Location`).', data: repairStagedResultSchema, headers: STAGED_HEADERS },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...STAGING, ...REPAIR_ERRORS]),
    followsJob: true,
  },
  {
    method: 'post',
    path: '/api/v1/cli/ledger/entries/{entry_id}/reverse/stage',
    operation: 'ledger_reversal.stage',
    summary: 'Stage the reversal of a ledger entry',
    description: 'Plans the reversing entry and the removal of the entry\'s bank links, and stages them for review. The body is optional.',
    tags: ['staging'],
    auth: { scope: 'ledger:stage' },
    pathParams: { schema: reversalStageParamsSchema },
    body: { schema: reversalStageRequestSchema, required: false },
    staging: true,
    success: {
      200: { description: 'The very same plan was already pending for this entry: that operation, with the warning `already_staged`.', data: reversalResultSchema, headers: STAGED_HEADERS },
      201: { description: 'A new staged operation (its URL in `Location`).', data: reversalResultSchema, headers: STAGED_HEADERS },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...STAGING, ...REVERSAL_ERRORS]),
    followsJob: true,
  },
  {
    method: 'get',
    path: '/api/v1/cli/bookkeeping/inbox/duplicates',
    operation: 'inbox_duplicates.list',
    summary: 'List the duplicate groups of the receipts inbox',
    description: 'Newest group first, one page at a time; follow `data.next_cursor` until it is null. Read-only.',
    tags: ['reads'],
    auth: { scope: 'inbox:read' },
    query: inboxDuplicatesQuerySchema,
    success: { 200: { description: 'One page of duplicate groups.', data: inboxDuplicatesResponseSchema } },
    // A read that outlives its wait is 503 service_unavailable (retryable), with Retry-After.
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor']),
  },
  {
    method: 'get',
    path: '/api/v1/cli/jobs/{job_id}',
    operation: 'jobs.show',
    summary: 'The answer of a staging call that outlived its wait',
    description: '202 while the job runs; once it is done, the operation\'s own envelope (status, data, warnings or error) exactly as the original request would have had it. Only the actor who started the job sees it.',
    tags: ['staging'],
    auth: { scope: null },
    pathParams: { schema: { properties: { job_id: jobIdSchema }, required: ['job_id'] } },
    success: {
      200: { description: 'The finished job\'s answer: `staged` (already pending), `noop` or `blocked`; or the staged operation an approve, reject or apply left.', data: { anyOf: [reconcileResultSchema, repairResultSchema, reversalResultSchema, stagedOperationSchema] }, headers: ['Location'] },
      201: { description: 'The finished job staged a new operation.', data: { anyOf: [reconcileResultSchema, repairStagedResultSchema, reversalResultSchema] }, headers: ['Location'] },
      202: { description: 'The job is still running.', data: pendingResultSchema, headers: ['Location', 'Retry-After'] },
    },
    // A finished job answers its operation's refusal, whatever it was.
    errors: unique([
      ...AUTHENTICATED, 'not_found', 'route_not_found', ...STAGING, ...REVERSAL_ERRORS, ...RECONCILE_ERRORS, ...REPAIR_ERRORS,
      ...APPROVE_ERRORS, ...REJECT_ERRORS, ...APPLY_ERRORS,
    ]),
  },
  {
    method: 'get',
    path: '/api/v1/cli/staged-operations',
    operation: 'staged_operations.list',
    summary: 'List staged operations',
    description: 'Newest first, one page at a time; follow `data.next_cursor` (valid for the same filters) until it is null. Without `staged:approve` only the caller\'s own operations are listed.',
    tags: ['review'],
    auth: { scope: 'staged:read' },
    query: stagedListQuerySchema,
    success: { 200: { description: 'One page of staged operations.', data: stagedListSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor']),
  },
  {
    method: 'get',
    path: '/api/v1/cli/staged-operations/{id}',
    operation: 'staged_operations.show',
    summary: 'One staged operation',
    description: 'Its plan, status, history and (once apply ended) result. Visible to its creator and to holders of `staged:approve`; anyone else gets 404.',
    tags: ['review'],
    auth: { scope: 'staged:read' },
    pathParams: { schema: stagedOperationParamsSchema },
    success: { 200: { description: 'The staged operation.', data: stagedOperationSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'not_found', 'route_not_found']),
  },
  {
    method: 'post',
    path: '/api/v1/cli/staged-operations/{id}/approve',
    operation: 'staged_operations.approve',
    summary: 'Approve a staged operation',
    description: 'staged → approved, as a job. Not by its creator while the organisation requires a distinct approver (403 `self_approval_forbidden`). The body is optional.',
    tags: ['review'],
    auth: { scope: 'staged:approve' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: approveBodySchema, required: false },
    staging: true,
    success: { 200: { description: 'The operation, `status: "approved"`.', data: stagedOperationSchema, headers: LIFECYCLE_HEADERS }, 202: PENDING },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...APPROVE_ERRORS]),
    followsJob: true,
  },
  {
    method: 'post',
    path: '/api/v1/cli/staged-operations/{id}/reject',
    operation: 'staged_operations.reject',
    summary: 'Reject a staged operation',
    description: 'staged or approved → rejected, as a job; releases its scope. A note is required.',
    tags: ['review'],
    auth: { scope: 'staged:approve' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: rejectBodySchema, required: true },
    staging: true,
    success: { 200: { description: 'The operation, `status: "rejected"`.', data: stagedOperationSchema, headers: LIFECYCLE_HEADERS }, 202: PENDING },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...REJECT_ERRORS]),
    followsJob: true,
  },
  {
    method: 'post',
    path: '/api/v1/cli/staged-operations/{id}/apply',
    operation: 'staged_operations.apply',
    summary: 'Apply an approved staged operation',
    description: 'Checks the plan\'s preconditions, stores the journal of writes and makes them, once, as a job (docs/staged-lifecycle.md). Applying an applied operation answers it again. The body is optional (`{}`).',
    tags: ['review'],
    auth: { scope: 'staged:apply' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: applyBodySchema, required: false },
    staging: true,
    success: { 200: { description: 'The operation, `status: "applied"`, with `result.changes`.', data: stagedOperationSchema, headers: LIFECYCLE_HEADERS }, 202: PENDING },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...APPLY_ERRORS]),
    followsJob: true,
  },
  {
    method: 'get',
    path: '/api/v1/cli/whoami',
    operation: 'whoami.show',
    summary: 'The token\'s organisation, actor and scopes',
    description: 'What the token presented is allowed to do, so that a client (the review page, docs/review-page.md) offers only the actions it may take. Any valid token.',
    tags: ['meta'],
    auth: { scope: null },
    success: { 200: { description: 'The token\'s identity.', data: whoamiSchema } },
    errors: AUTHENTICATED,
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operation: 'openapi',
    summary: 'This OpenAPI 3.1 document',
    description: 'Generated from the JSON schemas the API validates with. No token needed.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: { description: 'The OpenAPI document.', schema: { type: 'object', required: ['openapi', 'info', 'paths'] } },
    errors: [],
  },
  {
    method: 'get',
    path: '/healthz',
    operation: 'health',
    summary: 'Liveness',
    description: '200 while the process is up. No token needed.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: { description: 'The process is up.', schema: { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { const: true } } } },
    errors: [],
  },
  {
    method: 'get',
    path: '/readyz',
    operation: 'readiness',
    summary: 'Readiness',
    description: '200 when Redis and MongoDB each answer within 1 s; else 503 `dependency_unavailable` naming the one that did not (`details.dependency`, `details.down`). For load balancers and container health checks. No token needed, never rate limited.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: {
      description: 'Both backing services answered.',
      schema: {
        type: 'object', additionalProperties: false, required: ['ok', 'checks'],
        properties: {
          ok: { const: true },
          checks: { type: 'object', additionalProperties: false, required: ['Redis', 'MongoDB'], properties: { Redis: { const: 'up' }, MongoDB: { const: 'up' } } },
        },
      },
    },
    errors: ['dependency_unavailable'],
  },
];
