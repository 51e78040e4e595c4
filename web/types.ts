// The shapes the page reads, as the API answers them (docs/design/staged-lifecycle.md,
// docs/reference/http-api.md §13, shared/schemas/staged-operations.ts). Kept here, not
// imported, because the page is compiled for the browser on its own.

export interface Whoami { org_id: string; actor: string; scopes: string[] }

export interface HistoryItem { at: string; actor: string; from: string | null; to: string; note: string | null; request_id: string }

export interface StagedOperation {
  staged_operation_id: string;
  kind: 'ledger_link_repair' | 'bank_reconcile' | 'ledger_reversal';
  status: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  input: Record<string, unknown>;
  plan: unknown;
  plan_hash: string;
  summary: Record<string, number | string>;
  preconditions: { collection: string; id: string; version: number }[];
  history: HistoryItem[];
  result: { status: string; at?: string; by?: string; changes?: { action: string; collection: string; id: string }[]; error?: { code: string; message: string; details?: Record<string, unknown> } } | null;
}

export interface StagedPage { items: StagedOperation[]; next_cursor: string | null }

export type RepairAction =
  | { kind: 'move'; bank_transaction_id: string; link_id: string; from_ledger_entry_id: string; to_ledger_entry_id: string; amount_minor: number }
  | { kind: 'link'; bank_transaction_id: string; ledger_entry_id: string; amount_minor: number }
  | { kind: 'unlink'; bank_transaction_id: string; link_id: string; ledger_entry_id: string; amount_minor: number };

export interface RepairPlan {
  bank_account_id: string; counterparty_id: string; as_of: string; actions: RepairAction[];
  summary: Record<string, number>;
}

export interface ReconcilePlan {
  bank_account_id: string;
  statement: { end_date: string; closing_balance_minor: number; currency: string; reference: string | null };
  opening_balance_minor: number; cleared_total_minor: number; closing_balance_minor: number;
  transactions: { bank_transaction_id: string; booking_date: string; amount_minor: number; links: { link_id: string; ledger_entry_id: string; amount_minor: number }[] }[];
  left_out: { count: number; first_ids: string[] };
}

export interface Line { account: string; debit_minor: number; credit_minor: number }

export interface ReversalPlan {
  ledger_entry_id: string; reversal_date: string; reason: string | null;
  reversing_entry: { entry_date: string; description: string; reference: string; counterparty_id: string; currency: string; lines: Line[]; reversal_of: string };
  actions: { kind: 'unlink'; bank_transaction_id: string; link_id: string; ledger_entry_id: string; amount_minor: number }[];
}

export interface DuplicateGroup {
  group_id: string; confidence: number; canonical_document_id: string;
  documents: { document_id: string; role: string; status: string; received_at: string; reasons: { rule: string; with_document_id: string; confidence: number }[] }[];
}

export interface DuplicatePage { groups: DuplicateGroup[]; next_cursor: string | null }
