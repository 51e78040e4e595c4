// Every route's path, by its operation: the one place an API path is written.
// The route table (routes.ts) and each kind's staging route (shared/kinds/*/wire.ts)
// take their paths from here; the CLI and the bench build their URLs with
// pathOf from this module alone, so a command starts without loading the
// table's schemas and the kinds behind them (docs/design/performance.md
// "CLI start and book pages"). Plain data: import nothing here.
export const ROUTE_PATHS = {
  'bank_reconcile.stage': '/api/v1/cli/bank-matches/reconcile/stage',
  'ledger_link_repair.stage': '/api/v1/cli/bank-matches/ledger-link-repair/stage',
  'ledger_reversal.stage': '/api/v1/cli/ledger/entries/{entry_id}/reverse/stage',
  'inbox_duplicates_resolve.stage': '/api/v1/cli/bookkeeping/inbox/duplicates/{group_id}/resolve/stage',
  'statement_import.stage': '/api/v1/cli/bank-accounts/{bank_account_id}/statements/import/stage',
  'period_close.stage': '/api/v1/cli/periods/close/stage',
  'bank_match.stage': '/api/v1/cli/bank-matches/match/stage',
  'journal_entry.stage': '/api/v1/cli/ledger/entries/stage',
  'revert.stage': '/api/v1/cli/staged-operations/{id}/revert/stage',
  'approval_policy.stage': '/api/v1/cli/approval-policy/stage',
  'inbox_duplicates.list': '/api/v1/cli/bookkeeping/inbox/duplicates',
  'bank_accounts.csv_mapping.put': '/api/v1/cli/bank-accounts/{bank_account_id}/csv-mapping',
  'bank_accounts.csv_mapping.show': '/api/v1/cli/bank-accounts/{bank_account_id}/csv-mapping',
  'bank_accounts.list': '/api/v1/cli/bank-accounts',
  'bank_accounts.show': '/api/v1/cli/bank-accounts/{bank_account_id}',
  'bank_transactions.list': '/api/v1/cli/bank-transactions',
  'bank_transactions.show': '/api/v1/cli/bank-transactions/{bank_transaction_id}',
  'ledger_entries.list': '/api/v1/cli/ledger/entries',
  'ledger_entries.show': '/api/v1/cli/ledger/entries/{entry_id}',
  'ledger_accounts.list': '/api/v1/cli/ledger/accounts',
  'ledger.trial_balance': '/api/v1/cli/ledger/trial-balance',
  'books.export': '/api/v1/cli/books/export',
  'counterparties.list': '/api/v1/cli/counterparties',
  'inbox_documents.list': '/api/v1/cli/bookkeeping/inbox/documents',
  'inbox_documents.show': '/api/v1/cli/bookkeeping/inbox/documents/{document_id}',
  'periods.list': '/api/v1/cli/periods',
  'periods.show': '/api/v1/cli/periods/{through}',
  'match_suggestions.list': '/api/v1/cli/bank-transactions/{bank_transaction_id}/match-suggestions',
  'match_suggestions.decline': '/api/v1/cli/bank-transactions/{bank_transaction_id}/match-suggestions/decline',
  'jobs.show': '/api/v1/cli/jobs/{job_id}',
  'staged_operations.list': '/api/v1/cli/staged-operations',
  'staged_operations.show': '/api/v1/cli/staged-operations/{id}',
  'staged_operations.approve': '/api/v1/cli/staged-operations/{id}/approve',
  'staged_operations.reject': '/api/v1/cli/staged-operations/{id}/reject',
  'staged_operations.apply': '/api/v1/cli/staged-operations/{id}/apply',
  'whoami.show': '/api/v1/cli/whoami',
  'approval_policy.show': '/api/v1/cli/approval-policy',
  'events.list': '/api/v1/cli/events',
  'webhook_endpoints.create': '/api/v1/cli/webhook-endpoints',
  'webhook_endpoints.list': '/api/v1/cli/webhook-endpoints',
  'webhook_endpoints.delete': '/api/v1/cli/webhook-endpoints/{id}',
  'webhook_endpoints.deliveries': '/api/v1/cli/webhook-endpoints/{id}/deliveries',
  openapi: '/api/v1/openapi.json',
  health: '/healthz',
  readiness: '/readyz',
} as const;

/** A route's operation, as the route table names it (`bank_match.stage`, `jobs.show`). */
export type RouteOperation = keyof typeof ROUTE_PATHS;

/** A route entry's operation and path (`...routeAt('jobs.show')`): the path is the table's. */
export function routeAt<Op extends RouteOperation>(operation: Op): { operation: Op; path: (typeof ROUTE_PATHS)[Op] } {
  return { operation, path: ROUTE_PATHS[operation] };
}

/**
 * The path of an operation's route with each `{param}` filled, URI-encoded:
 * how the CLI and the bench build their URLs (the review page reads the same
 * paths from the build, docs/guide/review-page.md "How the page finds the
 * API's paths").
 */
export function pathOf(operation: RouteOperation, params: Readonly<Record<string, string>> = {}): string {
  const template: string | undefined = ROUTE_PATHS[operation];
  if (template === undefined) throw new Error(`no route for operation ${operation} in shared/contract/route-paths.ts`);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${operation} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
