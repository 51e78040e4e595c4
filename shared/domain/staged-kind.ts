// The kinds of staged operation (docs/design/staged-lifecycle.md): one per staging
// call. Storage stores them, the contract answers them, the page shows them.
export const STAGED_KINDS = [
  'bank_reconcile',
  'ledger_link_repair',
  'ledger_reversal',
  'inbox_duplicates_resolve',
  'statement_import',
] as const;
export type StagedKind = (typeof STAGED_KINDS)[number];
