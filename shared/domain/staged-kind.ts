// The kinds of staged operation (docs/design/staged-lifecycle.md): one per staging
// call. Storage stores them, the contract answers them, the page shows them.
// Each has its modules in shared/kinds/<kind>/ and its entries in the maps typed
// over StagedKind (docs/design/architecture.md "Kinds"): one added here without
// them fails tsc, naming what is missing.
export const STAGED_KINDS = [
  'bank_reconcile',
  'ledger_link_repair',
  'ledger_reversal',
  'inbox_duplicates_resolve',
  'statement_import',
  'period_close',
  'bank_match',
  'journal_entry',
  'revert',
  'approval_policy',
] as const;
export type StagedKind = (typeof STAGED_KINDS)[number];
