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
  jobIdSchema, pendingResultSchema, reconcileResultSchema, repairResultSchema, repairStagedResultSchema, reversalResultSchema,
} from './staging-results.js';

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

/** Errors any authenticated /api route can answer. */
const AUTHENTICATED: ErrorCode[] = ['unauthenticated', 'internal', 'service_unavailable'];
/** Errors of any route that reads a JSON body or the staging headers. */
const BODY: ErrorCode[] = ['validation_failed', 'malformed_json', 'payload_too_large', 'unsupported_media_type'];
/** Errors of the shared staging path (api/stage-handler.ts). */
const STAGING: ErrorCode[] = ['idempotency_key_reused', 'request_in_progress', 'pending_operation'];

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
      200: { description: 'The finished job\'s answer: `staged` (already pending), `noop` or `blocked`.', data: { anyOf: [reconcileResultSchema, repairResultSchema, reversalResultSchema] }, headers: ['Location'] },
      201: { description: 'The finished job staged a new operation.', data: { anyOf: [reconcileResultSchema, repairStagedResultSchema, reversalResultSchema] }, headers: ['Location'] },
      202: { description: 'The job is still running.', data: pendingResultSchema, headers: ['Location', 'Retry-After'] },
    },
    // A finished job answers its operation's refusal, whatever it was.
    errors: unique([...AUTHENTICATED, 'not_found', 'route_not_found', ...STAGING, ...REVERSAL_ERRORS, ...RECONCILE_ERRORS, ...REPAIR_ERRORS]),
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
];
