// What a revert of a reconciliation checks (docs/design/staged-lifecycle.md
// "Reverts"): only the account's latest reconciliation can be reverted (a
// later one, not itself reverted, must go first), and not one whose statement
// ends in a closed period. Its writes are the generic undo of its journal:
// the transactions back to unreconciled, the account's reconciled_through
// back to the value the journal kept as `before`.
import { refused } from '../../domain/decision.js';
import { canonicalJson } from '../../domain/plan-hash.js';
import { inClosedPeriod } from '../../domain/preconditions.js';
import type { KindRevertRules } from '../revert/plan.js';
import { recordKey } from '../revert/plan.js';
import { reconcileSubjectKey, type ReconciliationPlan } from './plan.js';

/** What the worker reads besides the journal's records: the later applied reconciliation of the account, if any. */
export interface ReconcileRevertExtra {
  later_staged_operation_id: string | null;
}

export const reconcileRevertRules: KindRevertRules<ReconcileRevertExtra> = {
  subjectKeys: (subject) => [reconcileSubjectKey((subject.plan as ReconciliationPlan).bank_account_id)],
  refusal: (subject, books) => {
    const account = subject.writes.find((w) => w.action === 'update' && w.collection === 'bank_accounts');
    if (!account || account.action !== 'update') return null;
    const now = books.records.get(recordKey(account.collection, account.id));
    // The account still ends where this reconciliation left it: it is the latest (a later one was reverted).
    if (!now || canonicalJson(now.reconciled_through ?? null) === canonicalJson(account.set.reconciled_through))
      return null;
    return refused('not_latest_reconciliation', {
      staged_operation_id: subject.id,
      bank_account_id: account.id,
      later_staged_operation_id: books.extra.later_staged_operation_id,
    });
  },
  locked: (plan, lockDate) => {
    const account = plan.changes.find((c) => c.action === 'update' && c.collection === 'bank_accounts');
    if (!account || account.action !== 'update') return null;
    const through = account.before.reconciled_through as { date: string } | null;
    if (!through || !inClosedPeriod(through.date, lockDate)) return null;
    return { reason: 'period_locked', lock_date: lockDate!, bank_account_id: account.id, end_date: through.date };
  },
};
