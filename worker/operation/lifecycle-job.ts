// Approve, reject and apply on the staging frame (docs/design/architecture.md "One
// staging request", docs/design/staged-lifecycle.md): load → decide → commit.
// `load` reads the operation as its caller may see it, and the org; `decide`
// is the pure rule (decideTransition, shared/domain/staged-transitions.ts):
// plain data, refusals as values; `commit` claims and writes a transition.
// A commit that loses its claim to another job (a racing reject, an apply,
// the sweep) decides again on what the winner left: the one retry loop of
// every lifecycle action is here.
import type { RefusedDecision } from '../../shared/domain/decision.js';
import {
  decideTransition,
  type LifecycleAction,
  type StagedStatus,
  type TransitionDecision,
} from '../../shared/domain/staged-transitions.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import { findOrg } from '../../shared/storage/books-read.js';
import type { AuditEventDoc, StagedOperationDoc } from '../../shared/storage/collections.js';
import { settleOperation, transitionStatus } from '../../shared/storage/staged-operation-status.js';
import { findApprovals, mergeApprovals } from '../../shared/storage/approvals.js';
import type { JobContext } from '../job-context.js';
import { afterLostClaim, expireOperation, historyItem } from './claims.js';
import {
  lifecycleInput,
  loadVisibleOperation,
  madeByThisJob,
  operationOutcome,
  reloadOperation,
} from './operation-access.js';

/** Enough for any race: each lost claim means the status moved on, and there are few statuses. */
const DECIDE_ATTEMPTS = 5;

export type TransitionTo = Extract<TransitionDecision, { outcome: 'transition' }>;
/** A commit's result: won (with the answer), or lost to the claim that holds the transition. */
export type Committed = { won: true; answer: StageAnswer } | { won: false; claim: AuditEventDoc };

export interface LifecycleJob {
  action: Exclude<LifecycleAction, 'expire'>;
  /** The status a won review moves to: a job that made it already (a retry) answers the operation as it is. */
  target?: StagedStatus;
  /** Claim and write a `transition` decision (default: commitTransition). */
  commit?: (ctx: JobContext, op: StagedOperationDoc, decision: TransitionTo) => Promise<Committed>;
  /** Apply: an apply under way (resume_apply) or ended (recorded). */
  resume?: (ctx: JobContext, op: StagedOperationDoc) => Promise<StageAnswer>;
}

export function lifecycleJob(job: LifecycleJob): (ctx: JobContext) => Promise<StageAnswer> {
  const commit = job.commit ?? commitTransition;
  return async (ctx) => {
    // The operation's approvals beside it: a transition's event shows who approved (shared/storage/approvals.ts).
    const [loaded, org, approvals] = await Promise.all([
      loadVisibleOperation(ctx),
      findOrg(ctx.db, ctx.data.org_id),
      findApprovals(ctx.db, ctx.data.org_id, [lifecycleInput(ctx).staged_operation_id]),
    ]);
    if (org) ctx.baseCurrency = org.base_currency;
    let op = mergeApprovals(loaded, approvals);
    for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt += 1) {
      const decision = decideTransition(
        { staged_operation_id: op._id, status: op.status, created_by: op.created_by, expires_at: op.expires_at },
        {
          action: job.action,
          actor: ctx.data.actor,
          require_distinct_approver: org?.require_distinct_approver ?? true,
          now: ctx.now.toISOString(),
          already_made: job.target !== undefined && madeByThisJob(ctx, op, job.target),
        },
      );
      switch (decision.outcome) {
        case 'refused':
          return refusedAnswer(ctx, decision);
        case 'expire_first':
          await expireOperation(ctx.db, op, decision.from, ctx.now, {
            request_id: ctx.data.request_id,
            claim_id: ctx.jobId,
          });
          return refusedAnswer(ctx, decision.then);
        case 'answered':
          await settleOperation(ctx.db, op);
          return operationOutcome(ctx, op);
        case 'resume_apply':
        case 'recorded':
          if (!job.resume) throw new Error(`${job.action} decided ${decision.outcome}`);
          return job.resume(ctx, op);
        case 'transition': {
          const committed = await commit(ctx, op, decision);
          if (committed.won) return committed.answer;
          op = await afterLostClaim(ctx.db, op, committed.claim);
          break;
        }
        case 'none':
          throw new Error(`${job.action} decided nothing`);
      }
    }
    throw new Error(`staged operation ${op._id} kept changing under ${job.action}`);
  };
}

/** A plain transition (approve, reject): claim → write → settle (audit, locks) → the operation as it now is. */
export async function commitTransition(
  ctx: JobContext,
  op: StagedOperationDoc,
  decision: TransitionTo,
): Promise<Committed> {
  const note = lifecycleInput(ctx).note ?? null;
  // The operation as loaded (in `decision.from`) is what the claim builds on, and the one its write leaves is answered: no read of it again (docs/design/performance.md "Statement import").
  const moved = await transitionStatus(
    ctx.db,
    ctx.data.org_id,
    op._id,
    decision.from,
    historyItem(ctx, decision.from, decision.to, note),
    {},
    { loaded: op },
  );
  if (!moved.won) return moved;
  const after = moved.op ?? (await reloadOperation(ctx, op._id));
  await settleOperation(ctx.db, after);
  ctx.log.info({ staged_operation_id: op._id, from: decision.from, to: decision.to }, 'staged operation transition');
  return { won: true, answer: await operationOutcome(ctx, after) };
}

/** A refusal as the job's answer (the processor stores it; the API maps it, api/outcome.ts). */
export function refusedAnswer(ctx: JobContext, decision: Pick<RefusedDecision, 'code' | 'details'>): StageAnswer {
  return { operation: ctx.data.operation, outcome: 'refused', code: decision.code, details: decision.details };
}
