// Staging a policy change (docs/design/staged-lifecycle.md "Approval policies"):
// load the policy in force, decide by the pure rule. One change is pending at a
// time: every one takes the same plan lock.
import type { ApprovalPolicy } from '../../../shared/domain/approval-policy.js';
import { decideApprovalPolicy, type ApprovalPolicyPlan } from '../../../shared/kinds/approval-policy/plan.js';
import { findCurrentPolicy } from '../../../shared/storage/approval-policies.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'approval_policy.stage';

export const stageApprovalPolicy = stagingJob<Op, ApprovalPolicy, ApprovalPolicyPlan>({
  kind: 'approval_policy',
  load: (ctx: JobContext<Op>) => findCurrentPolicy(ctx.db, ctx.data.org_id),
  decide: (current, _org, { data }) => decideApprovalPolicy(current, data.input),
});
