// Loading the staged operation a review or apply job acts on, as its caller
// may see it (docs/design/staged-lifecycle.md "Who sees what"): the creator, or an
// actor holding staged:approve in the org. Anyone else, and other orgs, get
// 404 — existence does not leak.
import { mayView } from '../../shared/domain/staged-transitions.js';
import { AppError } from '../../shared/errors.js';
import type { LifecycleJobInput } from '../../shared/queue/stage-jobs.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';

import { stagedOperationDetail } from '../../shared/storage/staged-operation-view.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import { withApprovals } from '../../shared/storage/approvals.js';
import { type StagedOperationDoc } from '../../shared/storage/collections.js';
import type { JobContext } from '../job-context.js';

/** The input of approve, reject and apply jobs (api/routes/staged-operations.ts). */
export type { LifecycleJobInput };

/** The input of a review or apply job (its operation narrows the job map to LifecycleJobInput). */
export const lifecycleInput = (ctx: JobContext): LifecycleJobInput => ctx.data.input as LifecycleJobInput;

export async function loadVisibleOperation(ctx: JobContext): Promise<StagedOperationDoc> {
  const input = lifecycleInput(ctx);
  const doc = await findStagedOperation(ctx.db, ctx.data.org_id, input.staged_operation_id);
  if (!doc || !mayView(doc, { actor: ctx.data.actor, can_approve: input.can_approve })) {
    throw new AppError('not_found', { details: { resource: 'Staged operation', id: input.staged_operation_id } });
  }
  return doc;
}

export async function reloadOperation(ctx: JobContext, id: string): Promise<StagedOperationDoc> {
  const doc = await findStagedOperation(ctx.db, ctx.data.org_id, id);
  if (!doc) throw new Error(`staged operation ${id} disappeared`);
  return doc;
}

/** The step succeeded: the operation as it now is, with its approvals. Refusals are thrown as AppErrors (the processor answers them). */
export async function operationOutcome(ctx: JobContext, doc: StagedOperationDoc): Promise<StageAnswer> {
  return {
    operation: ctx.data.operation,
    outcome: 'done',
    data: { ...stagedOperationDetail(await withApprovals(ctx.db, doc), baseCurrencyOf(ctx)) },
    warnings: [],
  };
}

/** The org's base currency its job read (JobContext.baseCurrency); a job answering an operation always has. */
export function baseCurrencyOf(ctx: JobContext): string {
  if (ctx.baseCurrency === undefined) throw new Error('the job answers an operation before reading its organisation');
  return ctx.baseCurrency;
}

/**
 * This job already made the transition to `to` (a retried job, or a keyed
 * replay joining it): it answers as if it just did. The job id is the
 * server's; the client's X-Request-Id identifies nothing here.
 */
export function madeByThisJob(ctx: JobContext, doc: StagedOperationDoc, to: StagedOperationDoc['status']): boolean {
  return doc.history.some((h) => h.to === to && h.claim_id === ctx.jobId);
}
