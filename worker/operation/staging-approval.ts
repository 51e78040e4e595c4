// What a new staged operation needs approved (docs/design/staged-lifecycle.md
// "Approving under a policy", "Unattended limits"): the requirement of the
// policy in force, and the policy's own approval when its creator is named in
// `unattended` for its kind and its amount stays within both limits. The day's
// total is reserved on the actor's chain (shared/storage/unattended-reservations.ts)
// before the operation is written, so parallel stagings never pass the limit.
import {
  addApproval,
  DEFAULT_POLICY,
  initialApproval,
  requirementFor,
  unattendedActor,
  unattendedAllowance,
  type ApprovalState,
} from '../../shared/domain/approval-policy.js';
import type { PlanContext } from '../../shared/domain/plan-context.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';
import { approvalSubject } from '../../shared/kinds/registry.js';
import { reservationKey, reserveUnattended, reservedBy } from '../../shared/storage/unattended-reservations.js';
import type { JobContext } from '../job-context.js';
import { baseCurrencyOf } from './operation-access.js';

export async function stagingApproval(
  ctx: JobContext,
  kind: StagedKind,
  operationId: string,
  plan: unknown,
  context: PlanContext,
): Promise<ApprovalState> {
  const { db, data, now } = ctx;
  const policy = ctx.approvalPolicy ?? DEFAULT_POLICY;
  const subject = approvalSubject({ kind, plan, context, created_by: data.actor }, baseCurrencyOf(ctx));
  const { amount_minor } = subject;
  const state = initialApproval(requirementFor(policy, subject));
  // Only a creator named for this kind, within the per-operation limit, reads the day's total.
  if (unattendedAllowance(policy, subject, 0) === null) return state;
  const at = now.toISOString();
  const key = reservationKey(data.org_id, data.actor, at.slice(0, 10));
  const reserved =
    (ctx.rerun && (await reservedBy(db, data.org_id, key, operationId))) ||
    (await reserveUnattended(
      db,
      data.org_id,
      key,
      operationId,
      amount_minor,
      (total) => unattendedAllowance(policy, subject, total) !== null,
      at,
    ));
  if (!reserved) return state;
  const { approved: _approved, ...approved } = addApproval(state, { actor: unattendedActor(policy.version), at });
  ctx.log.info({ staged_operation_id: operationId, amount_minor }, 'approved unattended by the policy');
  return approved;
}
