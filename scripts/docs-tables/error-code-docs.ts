// The "when" column of the error-code table in
// docs/reference/error-codes.md: one sentence per code of shared/errors.ts, which
// stays the one source of each code's status and retryable flag. A code
// without an entry here (or an entry without a code) fails
// test/unit/docs-tables.test.ts, so a new code cannot ship undocumented.

export const ERROR_CODE_DOCS: Readonly<Record<string, string>> = {
  validation_failed:
    'body, query, path or header invalid; `error.errors` lists each problem with a pointer; unknown fields are refused',
  malformed_json: 'the body is not valid JSON',
  invalid_cursor: 'a paging cursor this service did not issue for this query and organisation',
  unauthenticated: 'no bearer token, or an unknown one',
  forbidden:
    "the token lacks the route's scope (`details.required_scope`); for a revert, the scope that stages the reverted kind",
  not_found: "no such object in your organisation (another organisation's objects are `not_found` too, never 403)",
  route_not_found: 'no such route (`details.method`, `details.path`)',
  payload_too_large: "the body is over 1 MB, or over 10 MB for a statement import's file (`details.limit_bytes`)",
  request_header_too_large:
    'the request line and headers together are over 16 KB (`details.limit_bytes`); answered before any route, `operation: null`',
  malformed_request:
    'the HTTP request itself could not be parsed (bad request line or header syntax); answered before any route, `operation: null`',
  malformed_path:
    'a path parameter has malformed percent-encoding (`%`, `%zz`); answered before authentication, `details.reason`',
  malformed_body_encoding:
    'the body is not valid for its `Content-Encoding` (a corrupt or truncated gzip, deflate or br stream; `details.encoding`); an encoding other than these three is 415 `unsupported_media_type`',
  unsupported_media_type: 'the body is not `application/json`',
  rate_limited:
    'the token sent more than `RATE_LIMIT_REQUESTS` requests in `RATE_LIMIT_WINDOW_S` seconds, or the client address presented more than `RATE_LIMIT_AUTH_FAILURES` unknown tokens; `Retry-After` says when to come back (`details.limit`, `details.window_seconds`, `details.retry_after_seconds`)',
  already_reversed: 'the entry was already reversed (`details.reversed_by`)',
  entry_is_reversal:
    'the entry is itself a reversal (`details.reversal_of`): it is neither reversed (§9) nor matched with bank money (§8.1)',
  pending_operation:
    'a pending staged operation overlaps (`details.staged_operation_ids`); for a period close (staging and apply), pending operations would book in the period (`details: {through, operation_ids, staged_operation_ids}`): apply or reject them first',
  reconciled_links: 'the entry has links on reconciled transactions (`details.link_ids`, `details.transaction_ids`)',
  already_reconciled: 'transactions already reconciled (`details.transaction_ids`)',
  repair_too_large:
    'a link repair whose record set holds more than 15,000 transactions (docs/reference/http-api.md §6.7); nothing staged',
  reversal_before_entry: '`reversal_date` is before the entry date',
  invalid_period:
    'a period close\'s `through` is on or before the lock date (`details: {reason: "not_after_lock_date", through, lock_date}`) or not before today, UTC (`details: {reason: "not_before_today", through, today}`)',
  period_locked:
    "what the operation would book is dated on or before the organisation's lock date: a reversal's `reversal_date` (`details: {reversal_date, lock_date}`) or a reconciliation's `statement.end_date` (`details: {end_date, lock_date}`) or a journal entry's `entry_date` (`details: {entry_date, lock_date}`), or what a revert would remove, restore or undo (`details.staged_operation_id` and, by kind: the transactions' `transaction_ids`, a reconciliation's `bank_account_id` and `end_date`, a journal entry's reversing entry's `ledger_entry_id` and `reversal_date`); a statement import skips such lines instead (reason `period_locked`)",
  currency_mismatch:
    "the statement currency (of a reconciliation or of a statement import file) is not the account's (`details.statement_currency`), or a reconciliation's transactions are in another currency than the account (`details.transaction_ids`), or a bank match pairs a transaction and an entry of different currencies (`details.transaction_currency`, `details.entry_currency`), or a journal entry's currency is neither the base currency nor its bank transaction's (`details.currency`, `details.allowed_currencies`)",
  unreadable_statement:
    'a statement import file could not be read (`details.format` tried, `details.location`: the line or element, `details.reason`); nothing was stored',
  unsupported_statement_version:
    'a statement import file declares a version the reader does not know: a CAMT.053 namespace other than `camt.053.001.02` to `.08` (`details.format`, `details.version`: the namespace, `details.supported`); nothing was stored',
  account_mismatch:
    "a statement import file names none of the bank account's IBAN or account number (`details.file_accounts`)",
  amount_out_of_range:
    "an exact amount or total the plan would store is beyond ±(2^53−1) minor units: a reconciliation's cleared total, a statement import file's amount, or an import's totals (`details.field`, `details.value_minor` as a decimal string)",
  statement_before_last_reconciliation: "the statement ends before the account's `reconciled_through.date`",
  unknown_transactions: 'ids that are not transactions of this account (`details.transaction_ids`)',
  transaction_after_statement_end: 'transactions booked after `end_date` (`details.transaction_ids`)',
  unmatched_transactions:
    'transactions not fully linked (`details.transactions: [{bank_transaction_id, remainder_minor}]`)',
  out_of_balance: 'opening + Σ amounts ≠ closing (`details.expected_closing_minor`, `details.difference_minor`)',
  idempotency_key_reused: 'the Idempotency-Key was used with a different request (`details.original_request_id`)',
  service_unavailable:
    'a read (the duplicate overview) outlived its wait (`details.reason: "read_timeout"`, with `Retry-After: 1`)',
  dependency_unavailable:
    'Redis or MongoDB is unreachable (`details.dependency`); answered within 2 s with `Retry-After: 1`, and nothing was done (the request never reached Redis, or only read)',
  outcome_unknown:
    'Redis took the request but did not confirm in time (a stalled server): the job may have been queued and may still run. `Retry-After: 1`; a retry with the same Idempotency-Key (and body) converges on one outcome (`details.dependency`, `details.job_id`)',
  job_failed:
    'a staging job failed on every attempt (final for that job; the same Idempotency-Key retried starts a new attempt); logged with the request id, no internals answered',
  webhook_url_refused:
    'a webhook endpoint URL that is not `https` or points at a loopback, private, link-local or metadata address (`details.reason`); allowed only with `WEBHOOK_ALLOW_INSECURE=true` (docs/reference/webhooks.md)',
  self_approval_forbidden:
    'the creator of a staged operation tried to approve it while the approval policy (version 1 or more, or a policy change or period close) or the org (`require_distinct_approver`, version 0) requires another approver (`details.created_by`)',
  approver_not_allowed:
    'an agent approved where the approval policy admits no agent (`agents_may_approve: false`) or the rule (or a policy change, a period close) wants people (`details.actor`, `details.approvers`, `details.agents_may_approve`)',
  already_approved: 'the actor already approved this operation: each approval is by another actor (`details.actor`)',
  policy_changed:
    'apply found that the approval policy in force now asks more than the operation was given (a tightened rule, a higher amount bracket, people where agents approved): it is `staged` again with the new requirement and the approvals that still qualify (`details.approval`)',
  not_approved: 'apply of an operation that is not approved yet (`details.status`)',
  invalid_transition:
    "the operation's status does not allow the action, e.g. approve after reject (`details.status` is the recorded state, `details.action`)",
  stale_plan:
    "apply found documents changed since staging (`details.changed: [{collection, id, expected_version, actual_version}]`), or a lock date set since covers what it would book (`details.reason: \"period_locked\"`, `details.lock_date`, and by kind: a statement import's `transaction_ids`, a reconciliation's `bank_account_id` and `end_date`, a reversal's `ledger_entry_id` and `reversal_date`, a journal entry's `ledger_entry_id` and `entry_date`); the operation is `stale`, nothing was written; stage again",
  apply_failed:
    'apply could not complete (`details.reason`: e.g. `conflict_during_apply`, or `store_refused_write` for a document the store refuses to hold); the operation is `failed` and what it had written was undone',
  stale_group:
    'resolving a duplicate group whose id a stored overview listed but that is no current group: its members changed since (`details.group_id`); read the overview again',
  keep_document_not_member:
    'resolving a duplicate group with `archive_duplicates` and a `keep_document_id` that is not one of its members (`details.member_ids`)',
  duplicate_pair:
    'a bank match request gives the same (transaction, entry) pair twice (`details.bank_transaction_id`, `details.ledger_entry_id`, `details.indexes`: the positions in `matches`)',
  transaction_not_on_account:
    'a bank match names transactions of another account of the organisation (`details.bank_account_id`, `details.bank_transaction_ids`)',
  direction_mismatch:
    'a bank match pairs money in with an entry that is not a posted receivable on a settlement account, or money out with one that is not a posted payable (`details.transaction_amount_minor`, `details.entry_open_amount_minor`, `details.entry_status`)',
  over_allocated_transaction:
    "a bank match would link a transaction beyond |amount| (`details.bank_transaction_id`, `details.amount_minor`, `details.linked_minor`: its links now, `details.requested_minor`: Σ of the request's pairs)",
  over_allocated_entry:
    'a bank match would link an entry beyond what its links leave open of its settlement amount (`details.ledger_entry_id`, `details.open_minor`, `details.requested_minor`)',
  already_linked:
    'a bank match pair whose transaction is already linked to that entry (`details.link_ids`); stage a link repair to change a link',
  not_applied:
    'staging the revert of an operation that is not `applied` (`details.status`); only an applied operation can be reverted (docs/design/staged-lifecycle.md "Reverts")',
  not_revertible:
    'staging the revert of a kind that cannot be reverted (`details.kind`: a ledger reversal, a period close, a revert); stage the opposite change instead (docs/design/staged-lifecycle.md "Reverts")',
  already_reverted:
    'staging the revert of an operation whose revert is approved or applied (`details.reverted_by`); a revert only staged answers as a repeated staging',
  not_latest_reconciliation:
    'reverting a reconciliation while a later reconciliation of the account is applied and not reverted (`details.later_staged_operation_id`): revert that one first',
  changed_since_apply:
    'reverting an operation some of whose records changed since its apply (`details.ids`, `details.records`): an imported transaction linked or reconciled, a repaired link or its transaction or entry, an archived document',
  internal: 'an unexpected failure; it is logged with the request id and no internals are answered',
  invalid_lines:
    'a journal entry with fewer than 2 lines, or a line with both or neither side above 0 (`details.line_count`, `details.invalid_line_indexes`, from 0)',
  unbalanced_entry:
    "a journal entry's Σ debits ≠ Σ credits (`details.debit_total_minor`, `details.credit_total_minor`)",
  unknown_account:
    "a journal entry's line on an account the organisation's chart lacks or holds inactive (`details.accounts`); without a chart any code is accepted",
  posts_to_bank_account:
    "a journal entry's line on a bank account's `ledger_account` (`details.accounts`, `details.bank_account_ids`): the bank side is the transaction and its links",
  transaction_fully_linked:
    'the bank transaction a journal entry books has no unlinked amount left (`details.bank_transaction_id`, `details.amount_minor`, `details.linked_minor`)',
  settlement_line_mismatch:
    "a journal entry's lines on the settlement accounts (Σ debit − credit) do not settle what its bank transaction has left unlinked: + for money in, − for money out (`details.expected_settlement_minor`, `details.settlement_minor`)",
  document_not_open:
    'the inbox document a journal entry attaches is not `open` (`details.document_id`, `details.status`)',
  entry_exists:
    'a journal entry whose derived id is already in the books: the same booking was applied (`details.ledger_entry_id`)',
};
