// What applying a policy change writes (docs/design/staged-lifecycle.md
// "Approval policies"): one insert, the new version under the id derived from
// the organisation and that version. The unique `_id` settles a race: a second
// change built on the same version finds it taken, and its apply ends without
// writing.
import type { JournalContext, JournalWrite, KindJournal } from '../../domain/apply-journal.js';
import { approvalPolicyId, type ApprovalPolicyPlan } from '../../domain/approval-policy.js';
import { ok } from '../../domain/result.js';

export const approvalPolicyKindJournal: KindJournal = {
  plan: (plan, _books, ctx) => ok({ writes: approvalPolicyJournal(plan as ApprovalPolicyPlan, ctx), links: null }),
};

export function approvalPolicyJournal(plan: ApprovalPolicyPlan, ctx: JournalContext): JournalWrite[] {
  return [
    {
      action: 'insert',
      collection: 'approval_policies',
      id: approvalPolicyId(ctx.org_id, plan.version),
      doc: {
        policy_version: plan.version,
        rules: plan.rules,
        agents_may_approve: plan.agents_may_approve,
        unattended: plan.unattended,
        updated_at: ctx.now,
        updated_by_operation: ctx.staged_operation_id,
        version: 1,
      },
    },
  ];
}
