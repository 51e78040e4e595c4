// The MCP tools of `bookstage mcp` (docs/guide/agents.md): one per API call, named
// for what it does, each bound to its route in shared/contract/routes.ts
// by the route's operation name, so that its schemas are the API's own.
// Review and apply are off unless a person starts the server with
// --allow-review / --allow-apply (docs/guide/agents.md "Review and apply are off by default").
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { API_ROUTES, type RouteContract } from '../../../shared/contract/routes.js';

/** Which start-up flag a tool needs; null: always there. */
export type ToolGate = 'review' | 'apply' | null;

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  route: RouteContract;
  gate: ToolGate;
  annotations: ToolAnnotations;
}

const NOTHING_CHANGES =
  'Nothing in the books changes: the plan waits as a staged operation until a person approves and applies it.';
const OUTCOMES =
  'Outcomes: "staged" (a staged operation, its id in staged_operation_id; the warning already_staged means the very same plan was already pending), ' +
  '"pending" (the plan is still being computed: call get_job with job_id, or repeat this call with the same idempotency_key), ' +
  'or an error result (isError) whose code says why it was refused and whose retryable says whether the same call may succeed later.';
const KEY =
  'Pass idempotency_key to make a retry safe: the same key and arguments never stage twice. ' +
  'Pass dry_run: true to see the plan (plan, plan_hash, summary, warnings) without staging anything.';

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const STAGING: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

function route(operation: string): RouteContract {
  const found = API_ROUTES.find((r) => r.operation === operation);
  if (!found) throw new Error(`no API route for operation ${operation}`);
  return found;
}

const PAGED =
  'Pass next_cursor back as cursor (with the same filters) for the next page; null means the last page. Amounts are integer minor units.';

/** The book reads (docs/reference/book-reads.md): how an agent finds the ids the staging tools take. */
function bookReadTools(): ToolSpec[] {
  const read = (name: string, title: string, operation: string, description: string): ToolSpec => ({
    name,
    title,
    description: `Read-only. ${description} Ids of other organisations answer not_found.`,
    route: route(operation),
    gate: null,
    annotations: READ,
  });
  return [
    read(
      'list_bank_accounts',
      'List bank accounts',
      'bank_accounts.list',
      'Every bank account with its book balance (opening + Σ transactions) and its unreconciled count and sum. Amounts are integer minor units.',
    ),
    read(
      'get_bank_account',
      'Get one bank account',
      'bank_accounts.show',
      'One bank account by id with its book balance and unreconciled figures.',
    ),
    read(
      'list_bank_transactions',
      'List bank transactions',
      'bank_transactions.list',
      `Bank transactions by booking date, filtered by account, status, dates, counterparty or link_state; each with its links and remainder_minor (what a reconciliation still needs linked). ${PAGED}`,
    ),
    read(
      'get_bank_transaction',
      'Get one bank transaction',
      'bank_transactions.show',
      'One bank transaction by id with its links, linked_minor and remainder_minor.',
    ),
    read(
      'list_ledger_entries',
      'List ledger entries',
      'ledger_entries.list',
      `Ledger entries by entry date, filtered by counterparty, status, open, dates or exact reference; each with open_amount_minor and its links. ${PAGED}`,
    ),
    read(
      'get_ledger_entry',
      'Get one ledger entry',
      'ledger_entries.show',
      'One ledger entry by id with reversal_of/reversed_by, open_amount_minor and its links.',
    ),
    read(
      'list_ledger_accounts',
      'List the chart of accounts',
      'ledger_accounts.list',
      `The organisation's ledger accounts by code: code, name, type (asset, liability, equity, income, expense) and active. New entries may only post to active codes; an empty chart means any code is accepted. ${PAGED}`,
    ),
    read(
      'list_counterparties',
      'List the counterparties of a bank account',
      'counterparties.list',
      "One row per counterparty of the account's transactions or of an open posted entry: open receivable and payable beyond links and unlinked bank amount on the account — where link-repair candidates are found.",
    ),
    read(
      'list_inbox_documents',
      'List inbox documents',
      'inbox_documents.list',
      `Receipts inbox documents, newest first, optionally by status. ${PAGED}`,
    ),
    read(
      'get_inbox_document',
      'Get one inbox document',
      'inbox_documents.show',
      'One inbox document by id with every stored field.',
    ),
  ];
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'stage_bank_reconciliation',
    title: 'Stage a bank reconciliation',
    description:
      'Checks a bank statement (end date, closing balance in integer minor units, currency) against the listed bank transactions of one account ' +
      `and stages the reconciliation for review. ${NOTHING_CHANGES} ${OUTCOMES} ${KEY}`,
    route: route('bank_reconcile.stage'),
    gate: null,
    annotations: STAGING,
  },
  {
    name: 'stage_ledger_link_repair',
    title: 'Stage a FIFO repair of ledger ↔ bank links',
    description:
      "Re-links one counterparty's bank transactions on one bank account to its open ledger entries, oldest first (FIFO), and stages the moves, links " +
      `and unlinks for review. ${NOTHING_CHANGES} Besides "staged" and "pending", the outcome may be "noop" (the links already follow FIFO; nothing staged) ` +
      `or "blocked" (blockers says why; nothing staged). ${OUTCOMES} ${KEY}`,
    route: route('ledger_link_repair.stage'),
    gate: null,
    annotations: STAGING,
  },
  {
    name: 'stage_ledger_reversal',
    title: 'Stage the reversal of a ledger entry',
    description:
      'Plans the reversing entry of one ledger entry (entry_id) and the removal of its bank links, and stages them for review. ' +
      `${NOTHING_CHANGES} ${OUTCOMES} An entry that is already reversed, is itself a reversal, or lies in a locked period is refused with that code. ${KEY}`,
    route: route('ledger_reversal.stage'),
    gate: null,
    annotations: STAGING,
  },
  {
    name: 'stage_inbox_duplicates_resolution',
    title: 'Stage the resolution of an inbox duplicate group',
    description:
      'Resolves one duplicate group of the receipts inbox (group_id as list_inbox_duplicates names it): resolution "archive_duplicates" with keep_document_id ' +
      'archives every other member as a duplicate of the kept one (documents are never deleted); "not_duplicates" records that the members are not duplicates, ' +
      `so they are never grouped together again. ${NOTHING_CHANGES} ${OUTCOMES} A group whose members changed since it was listed is refused with stale_group ` +
      `(list again); an unknown group with not_found; a keep_document_id outside the group with keep_document_not_member. ${KEY}`,
    route: route('inbox_duplicates_resolve.stage'),
    gate: null,
    annotations: STAGING,
  },
  {
    name: 'stage_statement_import',
    title: 'Stage a bank statement import',
    description:
      'Reads a bank statement file (CAMT.053, OFX, MT940, or a CSV with its column mapping: date_column and amount_column, …) for one bank account ' +
      '(bank_account_id) and stages its new transactions for review; entries already on the account are listed as skipped with the reason. Give the file as ' +
      `content (text) or content_base64 (any bytes). ${NOTHING_CHANGES} Besides "staged" and "pending", the outcome may be "noop" (every entry is already on ` +
      `the account; nothing staged). ${OUTCOMES} An unreadable file is refused as unreadable_statement (details.location says where), a file of another account as account_mismatch. ${KEY}`,
    route: route('statement_import.stage'),
    gate: null,
    annotations: STAGING,
  },
  {
    name: 'list_inbox_duplicates',
    title: 'List the duplicate groups of the receipts inbox',
    description:
      'Read-only. One page of duplicate groups of the receipts inbox, newest first: each group names its canonical document, its duplicates and why they match. ' +
      'Pass next_cursor back as cursor (with the same min_confidence) for the next page; null means the last page.',
    route: route('inbox_duplicates.list'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'list_staged_operations',
    title: 'List staged operations',
    description:
      'Read-only. One page of staged operations, newest first, optionally by status, kind or creator. Without the staged:approve scope only the ' +
      'operations this token staged are listed. Pass next_cursor back as cursor (with the same filters) for the next page.',
    route: route('staged_operations.list'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'get_staged_operation',
    title: 'Get one staged operation',
    description:
      'Read-only. One staged operation by id (stg_…): its plan, status (staged, approved, applying, applied, rejected, expired, failed, stale), ' +
      'history and, once applied, its result. Also readable as the resource bookstage://staged-operations/{id}.',
    route: route('staged_operations.show'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'list_events',
    title: 'List events of staged operations',
    description:
      'Read-only. One page of the event feed, oldest first by sequence: one event per transition of a staged operation (staged_operation.staged, ' +
      '.approved, .rejected, .applying, .applied, .failed, .stale, .expired), each with the operation as that transition left it. Optionally one type. ' +
      'Pass next_cursor back as after (with the same type) for what happened since; an empty page means nothing new yet. Needs the events:read scope.',
    route: route('events.list'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'get_job',
    title: 'Get the answer of a pending job',
    description:
      'Read-only. The answer of a call that came back with outcome "pending": "pending" again while the job runs (wait a second and call again), ' +
      'otherwise exactly what the original call would have answered (a staged operation, noop, blocked, or an error result).',
    route: route('jobs.show'),
    gate: null,
    annotations: READ,
  },
  ...bookReadTools(),
  {
    name: 'approve_staged_operation',
    title: 'Approve a staged operation',
    description:
      'Approves a staged operation (staged → approved) so that it may be applied. Refused for its own creator when the organisation requires a ' +
      'distinct approver (self_approval_forbidden). Only offered when a person started this server with --allow-review.',
    route: route('staged_operations.approve'),
    gate: 'review',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'reject_staged_operation',
    title: 'Reject a staged operation',
    description:
      'Rejects a staged or approved operation with a note saying why; it is final and releases what the operation held. Only offered when a person ' +
      'started this server with --allow-review.',
    route: route('staged_operations.reject'),
    gate: 'review',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'apply_staged_operation',
    title: 'Apply an approved staged operation to the books',
    description:
      "Writes an approved staged operation's plan into the books, once, after checking nothing it relies on has changed (stale_plan otherwise). " +
      'This changes the books. Applying an applied operation answers it again. Only offered when a person started this server with --allow-apply.',
    route: route('staged_operations.apply'),
    gate: 'apply',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
];

export interface Allowances {
  review: boolean;
  apply: boolean;
}

/** The tools a server started with these flags offers. */
export function offeredTools(allow: Allowances): ToolSpec[] {
  return TOOLS.filter((t) => t.gate === null || allow[t.gate]);
}
