// Reverting a reconciliation (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads which reconciliation of the account was applied after this
// one and not reverted, for not_latest_reconciliation to name it.
import { reconcileRevertRules, type ReconcileRevertExtra } from '../../../shared/kinds/bank-reconcile/revert.js';
import type { ReconciliationPlan } from '../../../shared/kinds/bank-reconcile/plan.js';
import { operationsNaming } from '../../../shared/storage/reverts.js';
import { revertHook } from '../revert/hook.js';

export const reconcileRevert = revertHook<ReconcileRevertExtra>({
  rules: reconcileRevertRules,
  load: async (ctx, subject) => {
    const accountId = (subject.plan as ReconciliationPlan).bank_account_id;
    const applied = await operationsNaming(ctx.db, ctx.data.org_id, 'bank_reconcile', 'bank_account_id', accountId, [
      'applied',
    ]);
    const later = applied
      .filter((o) => o.id !== subject.id && o.reverted_by === null && (o.applied_at ?? '') > (subject.applied_at ?? ''))
      .sort((a, b) => ((a.applied_at ?? '') < (b.applied_at ?? '') ? 1 : -1));
    return { later_staged_operation_id: later[0]?.id ?? null };
  },
});
