// Every route the API serves, as data: method, operation (and its path, from
// route-paths.ts), scope, the request schemas it validates with (the very objects the routes compile) and
// the answers it can give, each status with its `data` schema or its error
// codes. The API mounts its routes by operation from here (routeOf,
// expressPath); shared/schemas/openapi.ts turns this table into the OpenAPI
// document; test/http/openapi.test.ts checks it against the routes the app
// really serves, so a route added without an entry here fails the suite.
import type { ErrorCode } from '../errors.js';
import type { TokenScope } from '../domain/token-scopes.js';
import { KIND_REFUSALS, KIND_ROUTES } from '../kinds/registry.js';
import { routeAt, type RouteOperation } from './route-paths.js';
import {
  AUTHENTICATED,
  BODY,
  JOB_PATH,
  PENDING,
  STAGING,
  unique,
  type ResponseHeader,
  type RouteContract,
} from './route-parts.js';
import {
  bankAccountListSchema,
  bankAccountParamsSchema,
  bankAccountSchema,
  bankTransactionParamsSchema,
  bankTransactionSchema,
  booksExportQuerySchema,
  counterpartiesQuerySchema,
  trialBalanceQuerySchema,
  trialBalanceSchema,
  counterpartyListSchema,
  documentPageSchema,
  documentParamsSchema,
  documentsQuerySchema,
  entriesQuerySchema,
  entryPageSchema,
  entryParamsSchema,
  inboxDocumentSchema,
  ledgerAccountPageSchema,
  ledgerAccountsQuerySchema,
  ledgerEntrySchema,
  noQuerySchema,
  transactionPageSchema,
  transactionsQuerySchema,
} from '../schemas/books-read.js';
import { inboxDuplicatesQuerySchema, inboxDuplicatesResponseSchema } from '../schemas/inbox-duplicates.js';
import {
  applyBodySchema,
  approveBodySchema,
  rejectBodySchema,
  stagedListQuerySchema,
  stagedListSchema,
  stagedOperationParamsSchema,
  stagedOperationSchema,
} from '../schemas/staged-operations.js';
import {
  jobIdSchema,
  pendingResultSchema,
  reconcileResultSchema,
  repairResultSchema,
  repairStagedResultSchema,
  reversalResultSchema,
} from '../schemas/staging-results.js';
import { whoamiSchema } from '../schemas/whoami.js';
import {
  closedPeriodPageSchema,
  periodCheckSchema,
  periodParamsSchema,
  periodsQuerySchema,
} from '../schemas/periods.js';
import {
  matchDeclineAnswerSchema,
  matchDeclineBodySchema,
  matchSuggestionsQuerySchema,
  matchSuggestionsSchema,
} from '../schemas/match-suggestions.js';
import { approvalPolicySchema } from '../schemas/approval-policy.js';
import { approvalPolicyResultSchema } from '../kinds/approval-policy/results.js';
import { inboxResolveResultSchema, statementImportResultSchema } from '../schemas/staging-results.js';
import { csvMappingAnswerSchema, csvMappingBodySchema } from '../kinds/statement-import/schema.js';
import {
  deliveriesQuerySchema,
  eventsPageSchema,
  eventsQuerySchema,
  webhookDeliveriesSchema,
  webhookEndpointCreatedSchema,
  webhookEndpointCreateSchema,
  webhookEndpointDeletedSchema,
  webhookEndpointListSchema,
  webhookEndpointParamsSchema,
} from '../schemas/events.js';

/** Review and apply refusals (docs/design/staged-lifecycle.md, rules in the order they are checked). */
const APPROVE_ERRORS: ErrorCode[] = [
  'not_found',
  'route_not_found',
  'invalid_transition',
  'self_approval_forbidden',
  'approver_not_allowed',
  'already_approved',
];
const REJECT_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'invalid_transition'];
const APPLY_ERRORS: ErrorCode[] = [
  'not_found',
  'route_not_found',
  'not_approved',
  'invalid_transition',
  'stale_plan',
  'apply_failed',
  // A period close while operations that would book in its period are pending (docs/design/staged-lifecycle.md "Closed periods").
  'pending_operation',
  'policy_changed',
];
const LIFECYCLE_HEADERS: ResponseHeader[] = ['Idempotent-Replayed', 'Preference-Applied'];

/** Errors of the book reads (docs/reference/book-reads.md): lists add invalid_cursor, single records not_found. */
const BOOK_LIST_ERRORS: ErrorCode[] = unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor']);
const BOOK_SHOW_ERRORS: ErrorCode[] = unique([
  ...AUTHENTICATED,
  'forbidden',
  'validation_failed',
  'not_found',
  'route_not_found',
]);

/** A book read (scope books:read, tag `books`). */
function bookRead(
  operation: RouteOperation,
  summary: string,
  description: string,
  data: object,
  more: Partial<RouteContract>,
): RouteContract {
  return {
    method: 'get',
    ...routeAt(operation),
    summary,
    description,
    tags: ['books'],
    auth: { scope: 'books:read' },
    success: { 200: { description: summary, data } },
    errors: more.pathParams ? BOOK_SHOW_ERRORS : BOOK_LIST_ERRORS,
    ...more,
  };
}

/** The book reads (docs/reference/book-reads.md): served from the store by api/routes/books-read.ts. */
const BOOK_READS: RouteContract[] = [
  bookRead(
    'bank_accounts.list',
    "The organisation's bank accounts",
    'Every bank account with its book balance (opening + Σ transactions) and its unreconciled count and sum. Read-only.',
    bankAccountListSchema,
    { query: noQuerySchema, errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed']) },
  ),
  bookRead(
    'bank_accounts.show',
    'One bank account',
    'Its stored fields, book balance and unreconciled figures. Read-only.',
    bankAccountSchema,
    { pathParams: { schema: bankAccountParamsSchema } },
  ),
  bookRead(
    'bank_transactions.list',
    'Bank transactions, filtered',
    'By (booking_date, id), one page at a time; follow `data.next_cursor` (valid for the same filters) until it is null. Each with its links, Σ links and reconciliation remainder. Read-only.',
    transactionPageSchema,
    { query: transactionsQuerySchema },
  ),
  bookRead(
    'bank_transactions.show',
    'One bank transaction',
    'Its stored fields, links, Σ links and reconciliation remainder. Read-only.',
    bankTransactionSchema,
    { pathParams: { schema: bankTransactionParamsSchema } },
  ),
  bookRead(
    'ledger_entries.list',
    'Ledger entries, filtered',
    'By (entry_date, id), one page at a time; follow `data.next_cursor` (valid for the same filters) until it is null. Each with its open amount and links. Read-only.',
    entryPageSchema,
    { query: entriesQuerySchema },
  ),
  bookRead(
    'ledger_entries.show',
    'One ledger entry',
    'Its stored fields (with reversal_of and reversed_by), open amount and links. Read-only.',
    ledgerEntrySchema,
    { pathParams: { schema: entryParamsSchema } },
  ),
  bookRead(
    'ledger_accounts.list',
    'The chart of accounts',
    "The organisation's ledger accounts by code (byte order), inactive ones included (`active: false`), one page at a time; follow `data.next_cursor` until it is null. Empty when the organisation has no chart (then entries may use any code). Read-only.",
    ledgerAccountPageSchema,
    { query: ledgerAccountsQuerySchema },
  ),
  bookRead(
    'ledger.trial_balance',
    'The trial balance',
    "Per account code and currency, the debit and credit totals and the balance (debit − credit) of the entries and of the bank side derived from transactions and their links (docs/design/ledger-postings.md), dated on or before `as_of` (today, UTC, when absent); with the chart's name and type where there is one. Computed by the worker: a read that outlives its wait is 503. Read-only.",
    trialBalanceSchema,
    { query: trialBalanceQuerySchema, errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed']) },
  ),
  {
    method: 'get',
    ...routeAt('books.export'),
    summary: 'The books as an hledger or beancount file',
    description:
      'Every account, entry and bank transaction with its derived postings (docs/design/ledger-postings.md), dated on or before `through`, as a plain-text accounting file that `hledger check` and `bean-check` read clean; reconciled balances as balance assertions. Streamed as text, not in the envelope (errors are). Computed by the worker: a read that outlives its wait is 503. Read-only.',
    tags: ['books'],
    auth: { scope: 'books:read' },
    query: booksExportQuerySchema,
    success: {},
    rawSuccess: {
      description: 'The file, UTF-8 text.',
      schema: { type: 'string' },
      mediaType: 'text/plain',
    },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed']),
  },
  bookRead(
    'counterparties.list',
    'Counterparties of a bank account',
    "One page of rows, one per counterparty of the account's transactions or of an open posted entry of the organisation in the account's currency, by counterparty id: latest bank name, open receivable and payable beyond links, unlinked bank amount on the account. Where repair candidates are found. Keyset-paged (limit ≤ 200, default 50; next_cursor). From figures the worker keeps as the books change: a read that outlives its wait is 503. Read-only.",
    counterpartyListSchema,
    {
      query: counterpartiesQuerySchema,
      errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor', 'not_found']),
    },
  ),
  bookRead(
    'inbox_documents.list',
    'Inbox documents',
    'Newest first, one page at a time; follow `data.next_cursor` until it is null. Read-only.',
    documentPageSchema,
    { query: documentsQuerySchema },
  ),
  bookRead('inbox_documents.show', 'One inbox document', 'Every stored field. Read-only.', inboxDocumentSchema, {
    pathParams: { schema: documentParamsSchema },
  }),
];

/** The closed periods (docs/design/staged-lifecycle.md "Closed periods"): served by api/routes/periods.ts. */
const PERIOD_READS: RouteContract[] = [
  bookRead(
    'periods.list',
    "The organisation's closed periods",
    'By `through`, one page at a time; follow `data.next_cursor` until it is null. Read-only.',
    closedPeriodPageSchema,
    { query: periodsQuerySchema },
  ),
  bookRead(
    'periods.show',
    'One closed period, checked',
    "Its stored hash beside the same hash of the period's records as they are now: `intact` is false when a record of the period changed since it was closed. Computed by the worker (it reads the whole period): a read that outlives its wait is 503. Read-only.",
    periodCheckSchema,
    { pathParams: { schema: periodParamsSchema } },
  ),
];

export type { ResponseHeader, RouteContract, SuccessAnswer } from './route-parts.js';

export const API_ROUTES: RouteContract[] = [
  // The staging calls, one per staged kind (shared/kinds/registry.ts).
  ...KIND_ROUTES,
  {
    method: 'get',
    ...routeAt('inbox_duplicates.list'),
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
    method: 'put',
    ...routeAt('bank_accounts.csv_mapping.put'),
    summary: 'Save the CSV column mapping of a bank account',
    description:
      'Replaces the account\'s saved mapping (the import\'s CSV mapping parameters as JSON; `date_column` required, defaults filled in). A CSV import of the account without mapping parameters uses it (docs/guide/statement-import.md "Saved CSV mapping").',
    tags: ['staging'],
    auth: { scope: 'bank:stage' },
    pathParams: { schema: bankAccountParamsSchema },
    body: { schema: csvMappingBodySchema, required: true },
    success: { 200: { description: 'The saved mapping, defaults filled in.', data: csvMappingAnswerSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, 'not_found', 'route_not_found', 'malformed_path']),
  },
  {
    method: 'get',
    ...routeAt('bank_accounts.csv_mapping.show'),
    summary: 'The saved CSV column mapping of a bank account',
    description:
      'The mapping a CSV import of the account without mapping parameters uses; `csv_mapping: null` when none is saved. Read-only.',
    tags: ['books'],
    auth: { scope: 'books:read' },
    pathParams: { schema: bankAccountParamsSchema },
    success: { 200: { description: 'The saved mapping, or `csv_mapping: null`.', data: csvMappingAnswerSchema } },
    errors: BOOK_SHOW_ERRORS,
  },
  ...BOOK_READS,
  ...PERIOD_READS,
  // Match suggestions and their declines (docs/reference/http-api.md §8.2).
  {
    method: 'get',
    ...routeAt('match_suggestions.list'),
    summary: 'Match suggestions for a bank transaction',
    description:
      'Open entries (alone, or sets of two or three of one counterparty summing exactly to what the transaction has left) and open inbox documents that could settle it, best first: exact fit, then a reference in the remittance text, then the counterparty, then the nearer date, then ids; each with its signals. Declined candidates never return. Computed by the worker: a read that outlives its wait is 503. Read-only: nothing is staged.',
    tags: ['books'],
    auth: { scope: 'books:read' },
    pathParams: { schema: bankTransactionParamsSchema },
    query: matchSuggestionsQuerySchema,
    success: {
      200: {
        description: 'The transaction, what it has left unlinked, and the suggestions.',
        data: matchSuggestionsSchema,
      },
    },
    errors: BOOK_SHOW_ERRORS,
  },
  {
    method: 'post',
    ...routeAt('match_suggestions.decline'),
    summary: 'Decline match suggestions for a bank transaction',
    description:
      'Records that these entries (or this document) do not settle the transaction: they are never suggested for it again, alone or in a set. Stages and applies nothing; declining again is the same decline.',
    tags: ['books'],
    auth: { scope: 'bank:stage' },
    pathParams: { schema: bankTransactionParamsSchema },
    body: { schema: matchDeclineBodySchema, required: true },
    success: { 200: { description: "The transaction's declines, this one included.", data: matchDeclineAnswerSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, 'not_found', 'route_not_found', 'malformed_path']),
  },
  {
    method: 'get',
    ...routeAt('jobs.show'),
    summary: 'The answer of a staging call that outlived its wait',
    description:
      "202 while the job runs; once it is done, the operation's own envelope (status, data, warnings or error) exactly as the original request would have had it. Only the actor who started the job sees it.",
    tags: ['staging'],
    auth: { scope: null },
    pathParams: { schema: { properties: { job_id: jobIdSchema }, required: ['job_id'] } },
    success: {
      200: {
        description:
          "The finished job's answer: `staged` (already pending), `noop` or `blocked`; or the staged operation an approve, reject or apply left.",
        data: {
          anyOf: [
            reconcileResultSchema,
            repairResultSchema,
            reversalResultSchema,
            stagedOperationSchema,
            inboxResolveResultSchema,
            statementImportResultSchema,
            approvalPolicyResultSchema,
          ],
        },
        headers: ['Location', 'Preference-Applied'],
      },
      201: {
        description: 'The finished job staged a new operation.',
        data: {
          anyOf: [
            reconcileResultSchema,
            repairStagedResultSchema,
            reversalResultSchema,
            inboxResolveResultSchema,
            statementImportResultSchema,
            approvalPolicyResultSchema,
          ],
        },
        headers: ['Location'],
      },
      202: {
        description: 'The job is still running.',
        data: pendingResultSchema,
        headers: ['Location', 'Retry-After'],
      },
    },
    // A finished job answers its operation's refusal, whatever it was.
    errors: unique([
      ...AUTHENTICATED,
      'not_found',
      'route_not_found',
      ...STAGING,
      ...KIND_REFUSALS,
      ...APPROVE_ERRORS,
      ...REJECT_ERRORS,
      ...APPLY_ERRORS,
      'malformed_path',
    ]),
  },
  {
    method: 'get',
    ...routeAt('staged_operations.list'),
    summary: 'List staged operations',
    description:
      "Newest first, one page at a time; follow `data.next_cursor` (valid for the same filters) until it is null. Without `staged:approve` only the caller's own operations are listed.",
    tags: ['review'],
    auth: { scope: 'staged:read' },
    query: stagedListQuerySchema,
    success: { 200: { description: 'One page of staged operations.', data: stagedListSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor']),
  },
  {
    method: 'get',
    ...routeAt('staged_operations.show'),
    summary: 'One staged operation',
    description:
      'Its plan, status, history and (once apply ended) result. Visible to its creator and to holders of `staged:approve`; anyone else gets 404.',
    tags: ['review'],
    auth: { scope: 'staged:read' },
    pathParams: { schema: stagedOperationParamsSchema },
    success: { 200: { description: 'The staged operation.', data: stagedOperationSchema } },
    errors: unique([
      ...AUTHENTICATED,
      'forbidden',
      'validation_failed',
      'not_found',
      'route_not_found',
      'malformed_path',
    ]),
  },
  {
    method: 'post',
    ...routeAt('staged_operations.approve'),
    summary: 'Approve a staged operation',
    description:
      'Adds one approval, as a job; the operation becomes `approved` (staged → approved) once the approvals given reach what the approval policy requires (docs/design/staged-lifecycle.md "Approval policies"). Refused in this order: its creator where the policy or the organisation bars it (403 `self_approval_forbidden`), an agent where agents may not approve or the rule wants people (403 `approver_not_allowed`), the same actor twice (409 `already_approved`). The body is optional.',
    tags: ['review'],
    auth: { scope: 'staged:approve' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: approveBodySchema, required: false },
    staging: true,
    success: {
      200: {
        description:
          'The operation with this approval in `approval.given`: `status: "approved"` once the approvals reach the requirement, else still `"staged"`.',
        data: stagedOperationSchema,
        headers: LIFECYCLE_HEADERS,
      },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...APPROVE_ERRORS, 'malformed_path']),
    followsJob: true,
  },
  {
    method: 'post',
    ...routeAt('staged_operations.reject'),
    summary: 'Reject a staged operation',
    description: 'staged or approved → rejected, as a job; releases its locks. A note is required.',
    tags: ['review'],
    auth: { scope: 'staged:approve' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: rejectBodySchema, required: true },
    staging: true,
    success: {
      200: {
        description: 'The operation, `status: "rejected"`.',
        data: stagedOperationSchema,
        headers: LIFECYCLE_HEADERS,
      },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...REJECT_ERRORS, 'malformed_path']),
    followsJob: true,
  },
  {
    method: 'post',
    ...routeAt('staged_operations.apply'),
    summary: 'Apply an approved staged operation',
    description:
      "Checks the plan's preconditions, stores the journal of writes and makes them, once, as a job (docs/design/staged-lifecycle.md). Applying an applied operation answers it again. The body is optional (`{}`).",
    tags: ['review'],
    auth: { scope: 'staged:apply' },
    pathParams: { schema: stagedOperationParamsSchema },
    body: { schema: applyBodySchema, required: false },
    staging: true,
    success: {
      200: {
        description: 'The operation, `status: "applied"`, with `result.changes`.',
        data: stagedOperationSchema,
        headers: LIFECYCLE_HEADERS,
      },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...JOB_PATH, ...APPLY_ERRORS, 'malformed_path']),
    followsJob: true,
  },
  {
    method: 'get',
    ...routeAt('whoami.show'),
    summary: "The token's organisation, actor and scopes",
    description:
      'What the token presented is allowed to do, so that a client (the review page, docs/guide/review-page.md) offers only the actions it may take. Any valid token.',
    tags: ['meta'],
    auth: { scope: null },
    success: { 200: { description: "The token's identity.", data: whoamiSchema } },
    errors: AUTHENTICATED,
  },
  {
    method: 'get',
    ...routeAt('approval_policy.show'),
    summary: "The organisation's approval policy",
    description:
      'The policy in force (docs/design/staged-lifecycle.md "Approval policies"): its rules, whether agents may approve, its unattended allowances. Version 0 (never set): one approval by anyone. Changed by staging `POST /api/v1/cli/approval-policy/stage`.',
    tags: ['review'],
    auth: { scope: 'staged:read' },
    success: { 200: { description: 'The policy in force.', data: approvalPolicySchema } },
    errors: unique([...AUTHENTICATED, 'forbidden']),
  },
  {
    method: 'get',
    ...routeAt('events.list'),
    summary: 'The event feed: every staged-operation transition',
    description:
      "The organisation's events in `sequence` order (docs/reference/webhooks.md), oldest first; follow `data.next_cursor` (it is there also on an empty page, to follow the feed). Events appear 2 s after their transition and are kept `EVENT_RETENTION_DAYS` (30).",
    tags: ['events'],
    auth: { scope: 'events:read' },
    query: eventsQuerySchema,
    success: { 200: { description: 'One page of events.', data: eventsPageSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'invalid_cursor']),
  },
  {
    method: 'post',
    ...routeAt('webhook_endpoints.create'),
    summary: 'Create a webhook endpoint',
    description:
      'Events from now on are POSTed to the URL, signed (docs/reference/webhooks.md). The signing `secret` is in this answer only.',
    tags: ['events'],
    auth: { scope: 'webhooks:manage' },
    body: { schema: webhookEndpointCreateSchema, required: true },
    success: {
      201: {
        description: 'The endpoint, with its secret (its URL in `Location`).',
        data: webhookEndpointCreatedSchema,
        headers: ['Location'],
      },
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, 'webhook_url_refused']),
  },
  {
    method: 'get',
    ...routeAt('webhook_endpoints.list'),
    summary: 'List webhook endpoints',
    description: "The organisation's endpoints, newest first, with their delivery progress (never their secrets).",
    tags: ['events'],
    auth: { scope: 'webhooks:manage' },
    success: { 200: { description: 'The endpoints.', data: webhookEndpointListSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden']),
  },
  {
    method: 'delete',
    ...routeAt('webhook_endpoints.delete'),
    summary: 'Delete a webhook endpoint',
    description: 'No more deliveries to it, from the next one on.',
    tags: ['events'],
    auth: { scope: 'webhooks:manage' },
    pathParams: { schema: webhookEndpointParamsSchema },
    success: { 200: { description: 'Deleted.', data: webhookEndpointDeletedSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'not_found', 'route_not_found']),
  },
  {
    method: 'get',
    ...routeAt('webhook_endpoints.deliveries'),
    summary: 'The delivery attempts of a webhook endpoint',
    description: 'Each attempt, newest first: event, time, status code or error, and when a failed one is tried again.',
    tags: ['events'],
    auth: { scope: 'webhooks:manage' },
    pathParams: { schema: webhookEndpointParamsSchema },
    query: deliveriesQuerySchema,
    success: { 200: { description: 'The attempts.', data: webhookDeliveriesSchema } },
    errors: unique([...AUTHENTICATED, 'forbidden', 'validation_failed', 'not_found', 'route_not_found']),
  },
  {
    method: 'get',
    ...routeAt('openapi'),
    summary: 'This OpenAPI 3.1 document',
    description: 'Generated from the JSON schemas the API validates with. No token needed.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: {
      description: 'The OpenAPI document.',
      schema: { type: 'object', required: ['openapi', 'info', 'paths'] },
    },
    errors: [],
  },
  {
    method: 'get',
    ...routeAt('health'),
    summary: 'Liveness',
    description: '200 while the process is up. No token needed.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: {
      description: 'The process is up.',
      schema: { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { const: true } } },
    },
    errors: [],
  },
  {
    method: 'get',
    ...routeAt('readiness'),
    summary: 'Readiness',
    description:
      '200 when Redis and MongoDB each answer within 1 s; else 503 `dependency_unavailable` naming the one that did not (`details.dependency`, `details.down`). For load balancers and container health checks. No token needed, never rate limited.',
    tags: ['meta'],
    auth: null,
    success: {},
    rawSuccess: {
      description: 'Both backing services answered.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['ok', 'checks'],
        properties: {
          ok: { const: true },
          checks: {
            type: 'object',
            additionalProperties: false,
            required: ['Redis', 'MongoDB'],
            properties: { Redis: { const: 'up' }, MongoDB: { const: 'up' } },
          },
        },
      },
    },
    errors: ['dependency_unavailable'],
  },
];

/** The route of an operation: its path, scope and schemas, as the API mounts it. */
export function routeOf(operation: string): RouteContract {
  const route = API_ROUTES.find((r) => r.operation === operation);
  if (!route) throw new Error(`no route for operation ${operation} in shared/contract/routes.ts`);
  return route;
}

/** The token scope a route requires; throws for a route that needs none (a programming error where one is required). */
export function requiredScope(route: RouteContract): TokenScope {
  const scope = route.auth?.scope;
  if (!scope) throw new Error(`route ${route.operation} requires no token scope`);
  return scope;
}

/** Express's form of a route's path: `{param}` → `:param`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');
