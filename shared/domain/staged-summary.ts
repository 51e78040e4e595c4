// The short summary a reviewer reads first (docs/guide/review-page.md "Views"):
// the counts and amounts of a plan, per kind. Pure.
import type { LinkRepairPlan } from './link-repair-plan.js';
import type { ReconciliationPlan } from './reconcile-checks.js';
import type { ReversalPlan } from './reversal-plan.js';
import type { StagedKind } from './staged-kind.js';
import type { InboxResolvePlan } from './inbox-resolve-plan.js';
import type { StatementImportPlan } from './statement-import/plan.js';

export function stagedSummary(kind: StagedKind, plan: unknown): Record<string, unknown> {
  switch (kind) {
    case 'ledger_link_repair':
      return { ...(plan as LinkRepairPlan).summary };
    case 'bank_reconcile': {
      const p = plan as ReconciliationPlan;
      return {
        transactions: p.transactions.length,
        opening_balance_minor: p.opening_balance_minor,
        cleared_total_minor: p.cleared_total_minor,
        closing_balance_minor: p.closing_balance_minor,
        left_out: p.left_out.count,
      };
    }
    case 'ledger_reversal': {
      const p = plan as ReversalPlan;
      return {
        ledger_entry_id: p.ledger_entry_id,
        unlinks: p.actions.length,
        unlinked_minor: p.actions.reduce((s, a) => s + a.amount_minor, 0),
      };
    }
    case 'inbox_duplicates_resolve': {
      const p = plan as InboxResolvePlan;
      return {
        group_id: p.group_id,
        resolution: p.resolution,
        members: p.member_ids.length,
        archives: p.archive_document_ids.length,
      };
    }
    case 'statement_import': {
      const p = plan as StatementImportPlan;
      return {
        bank_account_id: p.bank_account_id,
        format: p.format,
        new_transactions: p.new_transactions.length,
        skipped: p.skipped.length,
        new_total_minor: p.new_transactions.reduce((s, t) => s + t.amount_minor, 0),
      };
    }
  }
}
