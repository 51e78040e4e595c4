// What an operation holds and a one-line summary, for the inbox rows
// (docs/reference/http-api.md §6.3 scope keys; summary fields from shared/domain/staged-summary.ts).
import type {
  LinkRepairPlan as RepairPlan,
  ReconciliationPlan as ReconcilePlan,
  ReversalPlan,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

export function scopeOf(op: StagedOperation): string {
  switch (op.kind) {
    case 'ledger_link_repair': {
      const p = op.plan as RepairPlan;
      return `account ${p.bank_account_id}, counterparty ${p.counterparty_id}`;
    }
    case 'bank_reconcile':
      return `account ${(op.plan as ReconcilePlan).bank_account_id}`;
    case 'ledger_reversal':
      return `entry ${(op.plan as ReversalPlan).ledger_entry_id}`;
    case 'inbox_duplicates_resolve':
      return `duplicate group ${String((op.plan as { group_id?: unknown }).group_id)}`;
    case 'statement_import':
      return `account ${String(op.summary.bank_account_id)}, import`;
  }
}

export function summaryOf(op: StagedOperation): string {
  const s = op.summary;
  const n = (k: string): number => Number(s[k] ?? 0);
  const count = (k: string, one: string, many: string): string => `${n(k)} ${n(k) === 1 ? one : many}`;
  switch (op.kind) {
    case 'ledger_link_repair':
      return `${count('moves', 'move', 'moves')}, ${count('links', 'new link', 'new links')}, ${count('unlinks', 'unlink', 'unlinks')}`;
    case 'bank_reconcile':
      return `${count('transactions', 'transaction', 'transactions')} marked reconciled${n('left_out') ? `, ${n('left_out')} left out` : ''}`;
    case 'ledger_reversal':
      return `reverse ${String(s.ledger_entry_id)}, release ${count('unlinks', 'bank link', 'bank links')}`;
    case 'inbox_duplicates_resolve':
      return s.resolution === 'not_duplicates'
        ? `${count('members', 'document', 'documents')} marked not duplicates`
        : `archive ${count('archives', 'duplicate', 'duplicates')}`;
    case 'statement_import':
      return `${String(s.format)} import: ${count('new_transactions', 'new transaction', 'new transactions')}, ${n('skipped')} skipped`;
  }
}
