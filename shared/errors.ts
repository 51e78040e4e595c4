// The one table of error codes. Every failure the API can answer is an
// AppError carrying one of these codes; the HTTP status, `retryable` flag and
// default message come from here and nowhere else. Codes are part of the
// contract: never rename one, add new ones instead.

export interface FieldError {
  /** JSON pointer into the request (body fields as `/field`, query as `/query/x`, path as `/path/x`). */
  pointer: string;
  message: string;
}

type Details = Record<string, unknown>;

interface ErrorSpec {
  status: number;
  retryable: boolean;
  message: (details: Details) => string;
}

/** Ids in a message, at most ten: details carry the full list, messages stay readable. */
const MESSAGE_IDS = 10;
/** A detail as message text: ids, dates and numbers print as themselves, an absent one as `fallback`, anything else as JSON. */
function asText(v: unknown, fallback = ''): string {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
    return String(v);
  return JSON.stringify(v);
}
const list = (v: unknown): string => {
  if (!Array.isArray(v)) return asText(v);
  const shown = v.slice(0, MESSAGE_IDS).join(', ');
  return v.length > MESSAGE_IDS ? `${shown} and ${v.length - MESSAGE_IDS} more (see details)` : shown;
};

/** A lifecycle action as its past participle ("cannot be rejected"). */
const PAST: Record<string, string> = { approve: 'approved', reject: 'rejected', apply: 'applied', expire: 'expired' };
const pastParticiple = (action: unknown): string => PAST[String(action)] ?? asText(action);

/** What an apply_failed left in the books: said per reason, never "nothing was written" after writes stayed. */
function applyFailedAftermath(d: Record<string, unknown>): string {
  if (d.reason === 'conflict_during_apply_not_fully_undone' || d.reason === 'store_refused_write_not_fully_undone')
    return `some writes could not be undone (${list(d.not_undone)}); check those records.`;
  if (d.reason === 'conflict_during_apply' || d.reason === 'store_refused_write')
    return 'every write made was undone; the books are as before.';
  return 'nothing was written.';
}

/** What a plan stale by the lock date would have booked in the closed period, by kind (shared/domain/preconditions.ts `PeriodLocked`). */
function lockedWrite(d: Record<string, unknown>): string {
  if (d.end_date !== undefined) return `the reconciliation through ${asText(d.end_date)}`;
  if (d.reversal_date !== undefined) return `the reversing entry dated ${asText(d.reversal_date)}`;
  if (d.entry_date !== undefined) return `the entry ${asText(d.ledger_entry_id)} dated ${asText(d.entry_date)}`;
  return list(d.transaction_ids);
}

export const ERROR_TABLE = {
  validation_failed: {
    status: 400,
    retryable: false,
    message: () => 'The request is not valid; see error.errors for each problem.',
  },
  malformed_json: { status: 400, retryable: false, message: () => 'The request body is not valid JSON.' },
  invalid_cursor: {
    status: 400,
    retryable: false,
    message: () => 'The cursor is not one this service issued for this query.',
  },
  unauthenticated: {
    status: 401,
    retryable: false,
    message: () => 'A valid bearer token is required (Authorization: Bearer <token>).',
  },
  forbidden: {
    status: 403,
    retryable: false,
    message: (d) => `The token lacks the scope ${String(d.required_scope)}.`,
  },
  not_found: {
    status: 404,
    retryable: false,
    message: (d) => `${asText(d.resource, 'Resource')} ${asText(d.id)} was not found.`.replace(/ +\./, '.'),
  },
  route_not_found: { status: 404, retryable: false, message: (d) => `No route ${String(d.method)} ${String(d.path)}.` },
  payload_too_large: {
    status: 413,
    retryable: false,
    message: (d) => `The request body exceeds ${String(d.limit_bytes)} bytes.`,
  },
  request_header_too_large: {
    status: 431,
    retryable: false,
    message: (d) => `The request headers exceed ${String(d.limit_bytes)} bytes.`,
  },
  malformed_request: { status: 400, retryable: false, message: () => 'The HTTP request could not be parsed.' },
  malformed_path: { status: 400, retryable: false, message: () => 'The request path has malformed percent-encoding.' },
  malformed_body_encoding: {
    status: 400,
    retryable: false,
    message: (d) => `The request body could not be decoded as ${asText(d.encoding, 'its Content-Encoding')}.`,
  },
  unsupported_media_type: {
    status: 415,
    retryable: false,
    message: () => 'The request body must be JSON (Content-Type: application/json).',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    message: (d) =>
      `Too many requests with this token: the limit is ${String(d.limit)} per ${String(d.window_seconds)} s. Retry after ${String(d.retry_after_seconds)} s.`,
  },
  already_reversed: {
    status: 409,
    retryable: false,
    message: (d) => `Ledger entry ${String(d.ledger_entry_id)} was already reversed by ${String(d.reversed_by)}.`,
  },
  entry_is_reversal: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Ledger entry ${String(d.ledger_entry_id)} is itself the reversal of ${String(d.reversal_of)}: it settles that entry, so it is neither reversed nor matched with bank money.`,
  },
  pending_operation: {
    status: 409,
    retryable: true,
    message: (d) =>
      d.through !== undefined
        ? `Pending operations would book in the period through ${asText(d.through)}: ${list(d.staged_operation_ids)}. Apply or reject them first.`
        : `A pending staged operation already holds what this plan would lock: ${list(d.staged_operation_ids)}.`,
  },
  reconciled_links: {
    status: 409,
    retryable: false,
    message: (d) => `The entry has bank links on reconciled transactions: ${list(d.transaction_ids)}.`,
  },
  repair_too_large: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The account has ${asText(d.transactions)} transactions with this counterparty; a link repair takes at most ${asText(d.limit)}.`,
  },
  reversal_before_entry: {
    status: 422,
    retryable: false,
    message: (d) => `reversal_date ${String(d.reversal_date)} is before the entry date ${String(d.entry_date)}.`,
  },
  invalid_period: {
    status: 422,
    retryable: false,
    message: (d) =>
      d.reason === 'not_after_lock_date'
        ? `through ${String(d.through)} is not after the lock date ${String(d.lock_date)}: that period is already closed.`
        : `through ${String(d.through)} is not before today (${String(d.today)}): only past days can be closed.`,
  },
  period_locked: {
    status: 422,
    retryable: false,
    message: (d) =>
      d.end_date !== undefined
        ? `The statement ends ${asText(d.end_date)}, not after the lock date ${String(d.lock_date)}: that period is closed.`
        : d.transaction_ids !== undefined
          ? `Transactions dated on or before the lock date ${String(d.lock_date)}: ${list(d.transaction_ids)}.`
          : d.entry_date !== undefined
            ? `entry_date ${asText(d.entry_date)} is not after the lock date ${String(d.lock_date)}.`
            : `reversal_date ${String(d.reversal_date)} is not after the lock date ${String(d.lock_date)}.`,
  },
  currency_mismatch: {
    status: 422,
    retryable: false,
    message: (d) =>
      Array.isArray(d.transaction_ids)
        ? `Transactions in another currency than the account's ${asText(d.account_currency)}: ${list(d.transaction_ids)}.`
        : d.ledger_entry_id !== undefined && d.bank_transaction_id !== undefined
          ? `Bank transaction ${asText(d.bank_transaction_id)} is in ${asText(d.transaction_currency)}, ledger entry ${asText(d.ledger_entry_id)} in ${asText(d.entry_currency)}.`
          : Array.isArray(d.allowed_currencies)
            ? `The currency ${asText(d.currency)} is not one of ${list(d.allowed_currencies)}.`
            : 'The currency does not match the bank account.',
  },
  statement_before_last_reconciliation: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The statement ends ${String(d.end_date)}, before the last reconciliation on ${String(d.reconciled_through_date)}.`,
  },
  unknown_transactions: {
    status: 422,
    retryable: false,
    message: (d) => `Not transactions of this account: ${list(d.transaction_ids)}.`,
  },
  already_reconciled: {
    status: 409,
    retryable: false,
    message: (d) => `Already reconciled: ${list(d.transaction_ids)}.`,
  },
  transaction_after_statement_end: {
    status: 422,
    retryable: false,
    message: (d) => `Booked after the statement end date: ${list(d.transaction_ids)}.`,
  },
  unmatched_transactions: {
    status: 422,
    retryable: false,
    message: () => 'Some transactions are not fully linked to ledger entries; see details.transactions.',
  },
  out_of_balance: {
    status: 422,
    retryable: false,
    message: (d) =>
      `Opening balance plus transactions differs from the closing balance by ${String(d.difference_minor)} minor units.`,
  },
  unreadable_statement: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The statement file could not be read as ${asText(d.format)} at ${asText(d.location)}: ${asText(d.reason)}`,
  },
  unsupported_statement_version: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The statement file is ${asText(d.format)} version ${asText(d.version)}; supported: ${asText(d.supported)}.`,
  },
  account_mismatch: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The statement is not for bank account ${asText(d.bank_account_id)} (the file names ${list(d.file_accounts)}).`,
  },
  webhook_url_refused: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The webhook URL is refused (${String(d.reason)}): https on a public address only (docs/reference/webhooks.md).`,
  },
  self_approval_forbidden: {
    status: 403,
    retryable: false,
    message: (d) =>
      `Another actor must approve: ${String(d.created_by)} staged ${String(d.staged_operation_id)} and cannot approve it (the organisation or its approval policy requires a distinct approver).`,
  },
  approver_not_allowed: {
    status: 403,
    retryable: false,
    message: (d) =>
      `${String(d.actor)} is an agent, and its approval does not count for ${String(d.staged_operation_id)}: ${d.agents_may_approve === false ? 'the approval policy admits no agent' : 'it needs people only'}.`,
  },
  already_approved: {
    status: 409,
    retryable: false,
    message: (d) =>
      `${String(d.actor)} already approved ${String(d.staged_operation_id)}: each approval is by another actor.`,
  },
  policy_changed: {
    status: 409,
    retryable: false,
    message: (d) =>
      `The approval policy in force now asks more of ${String(d.staged_operation_id)} than it was given: it is staged again (see details.approval).`,
  },
  not_approved: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Staged operation ${String(d.staged_operation_id)} is not approved yet (status ${String(d.status)}).`,
  },
  invalid_transition: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Staged operation ${String(d.staged_operation_id)} is ${String(d.status)}; it cannot be ${pastParticiple(d.action)}.`,
  },
  stale_plan: {
    status: 409,
    retryable: false,
    message: (d) =>
      d.reason === 'period_locked'
        ? `The period through ${asText(d.lock_date)} was closed since ${String(d.staged_operation_id)} was staged; ${lockedWrite(d)} would be booked in it. Nothing was written. Stage again.`
        : `The books changed since ${String(d.staged_operation_id)} was staged (${list((d.changed as { id: string }[] | undefined)?.map((c) => c.id))}); nothing was written. Stage again.`,
  },
  apply_failed: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Applying ${asText(d.staged_operation_id, 'the operation')} failed (${String(d.reason)}); ${applyFailedAftermath(d)}`,
  },
  amount_out_of_range: {
    status: 422,
    retryable: false,
    message: (d) =>
      `${asText(d.field, 'An amount')} would be ${asText(d.value_minor)} minor units, beyond ±${asText(d.max_minor)}.`,
  },
  idempotency_key_reused: {
    status: 422,
    retryable: false,
    message: () => 'This Idempotency-Key was already used with a different request.',
  },
  service_unavailable: {
    status: 503,
    retryable: true,
    message: () => 'A backing service is unavailable; retry shortly.',
  },
  dependency_unavailable: {
    status: 503,
    retryable: true,
    message: (d) => `${asText(d.dependency, 'A backing service')} is unreachable; nothing was done. Retry shortly.`,
  },
  outcome_unknown: {
    status: 503,
    retryable: true,
    message: (d) =>
      `${asText(d.dependency, 'A backing service')} did not confirm in time; the request may have been carried out. Retry the same request (with the same Idempotency-Key): it converges on one outcome.`,
  },
  job_failed: {
    status: 500,
    retryable: false,
    message: () =>
      'The job failed for good after its retries; it was logged with this request id. Retrying the request with the same Idempotency-Key starts a new attempt.',
  },
  stale_group: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Duplicate group ${String(d.group_id)} is not a current group: its documents changed since it was listed. Read the overview again.`,
  },
  keep_document_not_member: {
    status: 422,
    retryable: false,
    message: (d) =>
      `keep_document_id ${String(d.keep_document_id)} is not a member of duplicate group ${String(d.group_id)}.`,
  },
  duplicate_pair: {
    status: 400,
    retryable: false,
    message: (d) =>
      `The pair ${asText(d.bank_transaction_id)} → ${asText(d.ledger_entry_id)} is given more than once (matches ${list(d.indexes)}).`,
  },
  transaction_not_on_account: {
    status: 422,
    retryable: false,
    message: (d) => `Not transactions of bank account ${asText(d.bank_account_id)}: ${list(d.bank_transaction_ids)}.`,
  },
  direction_mismatch: {
    status: 422,
    retryable: false,
    message: (d) =>
      `Bank transaction ${asText(d.bank_transaction_id)} (${asText(d.transaction_amount_minor)}) cannot settle ledger entry ${asText(d.ledger_entry_id)}: money in settles only a posted receivable on a settlement account, money out only a posted payable.`,
  },
  over_allocated_transaction: {
    status: 422,
    retryable: false,
    message: (d) =>
      `Bank transaction ${asText(d.bank_transaction_id)} would be linked beyond its amount ${asText(d.amount_minor)}: ${asText(d.linked_minor)} linked already, ${asText(d.requested_minor)} requested.`,
  },
  over_allocated_entry: {
    status: 422,
    retryable: false,
    message: (d) =>
      `Ledger entry ${asText(d.ledger_entry_id)} has ${asText(d.open_minor)} open beyond its links; ${asText(d.requested_minor)} requested.`,
  },
  already_linked: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Bank transaction ${asText(d.bank_transaction_id)} is already linked to ledger entry ${asText(d.ledger_entry_id)} (${list(d.link_ids)}).`,
  },
  invalid_lines: {
    status: 422,
    retryable: false,
    message: (d) =>
      Number(d.line_count) < 2
        ? `An entry needs at least 2 lines; this one has ${asText(d.line_count)}.`
        : `Each line needs exactly one side above 0; lines ${list(d.invalid_line_indexes)} (from 0) have both or neither.`,
  },
  unbalanced_entry: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The debits (${asText(d.debit_total_minor)}) and credits (${asText(d.credit_total_minor)}) of the entry differ.`,
  },
  unknown_account: {
    status: 422,
    retryable: false,
    message: (d) => `Not active accounts of the chart of accounts: ${list(d.accounts)}.`,
  },
  posts_to_bank_account: {
    status: 422,
    retryable: false,
    message: (d) =>
      `Lines on a bank account's ledger account (${list(d.accounts)}): the bank side is the transaction and its links.`,
  },
  transaction_fully_linked: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Bank transaction ${asText(d.bank_transaction_id)} is fully linked already (${asText(d.linked_minor)} of ${asText(d.amount_minor)}).`,
  },
  settlement_line_mismatch: {
    status: 422,
    retryable: false,
    message: (d) =>
      `The entry's lines on the settlement accounts come to ${asText(d.settlement_minor)} (debit − credit); booking ${asText(d.bank_transaction_id)} needs ${asText(d.expected_settlement_minor)}.`,
  },
  document_not_open: {
    status: 409,
    retryable: false,
    message: (d) => `Inbox document ${asText(d.document_id)} is ${asText(d.status)}, not open.`,
  },
  entry_exists: {
    status: 409,
    retryable: false,
    message: (d) => `Ledger entry ${asText(d.ledger_entry_id)} is already in the books: this booking was applied.`,
  },
  not_applied: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Staged operation ${asText(d.staged_operation_id)} is ${asText(d.status)}, not applied: only an applied operation can be reverted.`,
  },
  not_revertible: {
    status: 422,
    retryable: false,
    message: (d) =>
      `A ${asText(d.kind)} cannot be reverted (docs/design/staged-lifecycle.md "Reverts" says what to do instead).`,
  },
  already_reverted: {
    status: 409,
    retryable: false,
    message: (d) =>
      `Staged operation ${asText(d.staged_operation_id)} is already reverted, or being reverted, by ${asText(d.reverted_by)}.`,
  },
  not_latest_reconciliation: {
    status: 409,
    retryable: false,
    message: (d) =>
      `A later reconciliation of account ${asText(d.bank_account_id)} is applied (${asText(d.later_staged_operation_id, 'unknown')}): revert it first.`,
  },
  changed_since_apply: {
    status: 409,
    retryable: false,
    message: (d) => `Records the apply wrote changed since: ${list(d.ids)}.`,
  },
  internal: {
    status: 500,
    retryable: true,
    message: () => 'An unexpected error occurred; it was logged with this request id.',
  },
} satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface AppErrorOptions {
  details?: Details;
  errors?: FieldError[];
  message?: string;
}

/** A failure with a stable code; the error middleware turns it into an envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Details;
  readonly errors: FieldError[] | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const details = options.details ?? {};
    super(options.message ?? ERROR_TABLE[code].message(details));
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.errors = options.errors;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  get retryable(): boolean {
    return ERROR_TABLE[this.code].retryable;
  }

  /** The `error` member of an error envelope. */
  toBody(): ErrorBody {
    const body: ErrorBody = {
      code: this.code,
      status: this.status,
      retryable: this.retryable,
      message: this.message,
      details: this.details,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }

  /** Rebuild from a body (e.g. a job result crossing the queue). */
  static fromBody(body: ErrorBody): AppError {
    const opts: AppErrorOptions = { details: body.details, message: body.message };
    if (body.errors) opts.errors = body.errors;
    return new AppError(body.code, opts);
  }
}

export interface ErrorBody {
  code: ErrorCode;
  status: number;
  retryable: boolean;
  message: string;
  details: Details;
  errors?: FieldError[];
}
