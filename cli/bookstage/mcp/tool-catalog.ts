// The MCP tools of `bookstage mcp` (docs/guide/agents.md): one per API call, named
// for what it does, each bound to its route in shared/contract/routes.ts
// by the route's operation name, so that its schemas are the API's own.
// Review and apply are off unless a person starts the server with
// --allow-review / --allow-apply (docs/guide/agents.md "Review and apply are off by default").
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { API_ROUTES, type RouteContract } from '../../../shared/contract/routes.js';
import { KINDS, STAGED_KINDS } from '../../../shared/kinds/registry.js';

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
      'get_trial_balance',
      'Get the trial balance',
      'ledger.trial_balance',
      "Per account code and currency: debit and credit totals and the balance (debit − credit) of the entries and of the bank side derived from transactions and links, dated on or before as_of (default today, UTC), with the chart name and type. SUSPENSE holds bank amounts no link explains yet; OPENING-BALANCES balances the bank accounts' opening balances.",
    ),
    read(
      'list_counterparties',
      'List the counterparties of a bank account',
      'counterparties.list',
      `One row per counterparty of the account's transactions or of an open posted entry in the account's currency, by counterparty id: open receivable and payable beyond links and unlinked bank amount on the account — where link-repair candidates are found. ${PAGED}`,
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
    read(
      'list_closed_periods',
      'List closed periods',
      'periods.list',
      `The organisation's closed periods by through (the last closed day): closed_at, approved_by and the hash stored when it was closed. Nothing can be booked on or before the latest through. ${PAGED}`,
    ),
    read(
      'get_closed_period',
      'Check one closed period',
      'periods.show',
      'One closed period by through (YYYY-MM-DD): its stored hash beside the hash of its entries and bank transactions as they are now; intact is false when a record of the period changed since it was closed.',
    ),
  ];
}

export const TOOLS: readonly ToolSpec[] = [
  // The staging tools, one per staged kind, their texts from the kind's module (shared/kinds/registry.ts).
  // A kind that changes the governance itself (a policy change, a period close) only with --allow-review.
  ...STAGED_KINDS.map((kind): ToolSpec => {
    const { gate, ...mcp } = KINDS[kind].mcp;
    return { ...mcp, route: KINDS[kind].route, gate: gate ?? null, annotations: STAGING };
  }),
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
    name: 'suggest_matches',
    title: 'Suggest what settles a bank transaction',
    description:
      'Read-only. For one bank transaction (bank_transaction_id): what it has left unlinked (remaining_minor) and, best first, the open ledger entries ' +
      '(alone, or sets of two or three of one counterparty summing exactly to it) and open inbox documents that could settle it, each with ' +
      'amount_fit (exact or partial), a score and its signals (the reference found in the remittance text, the counterparty, the days apart). ' +
      'Nothing is staged: to act on a suggestion, call stage_bank_match with its entries (bank_transaction_id, ledger_entry_id, amount_minor: the ' +
      "entry's open_minor, at most remaining_minor) for a person to review; decline a wrong one with decline_match_suggestion. limit 1–20, default 5.",
    route: route('match_suggestions.list'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'get_approval_policy',
    title: "Get the organisation's approval policy",
    description:
      'Read-only. The approval policy in force: its rules (tried in order; kinds, min_amount_minor, approvals, approvers "any" or "people"), ' +
      'agents_may_approve and the unattended allowances. Version 0 means never set: one approval by anyone other than the creator.',
    route: route('approval_policy.show'),
    gate: null,
    annotations: READ,
  },
  {
    name: 'decline_match_suggestion',
    title: 'Decline suggested matches for a bank transaction',
    description:
      'Records that these ledger entries (ledger_entry_ids) or this inbox document (document_id), exactly one of the two, do not settle the bank ' +
      'transaction (bank_transaction_id): suggest_matches never offers them for it again, alone or in a set. Answers the count of its declines. ' +
      'Stages and applies nothing; declining again changes nothing. Needs the bank:stage scope.',
    route: route('match_suggestions.decline'),
    gate: null,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'approve_staged_operation',
    title: 'Approve a staged operation',
    description:
      'Adds one approval to a staged operation; it becomes approved (and may be applied) once the approvals reach what the approval policy ' +
      "requires (get_approval_policy; the operation's approval shows required, given and remaining). Refused for its own creator when the " +
      'organisation or its policy requires a distinct approver (self_approval_forbidden), for an agent the policy does not admit ' +
      '(approver_not_allowed), and a second time by the same actor (already_approved). Only offered when a person started this server with --allow-review.',
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
