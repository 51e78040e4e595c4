// Every staging job has the same three steps (docs/design/architecture.md "One
// staging request"): `load` reads what the rule needs (storage), `decide` is the
// pure domain rule returning a Decision, `commit` writes it. A kind states
// only its load and decide; the path around them is written once, here.
import type { Org } from '../../shared/domain/books.js';
import type { PlanContext } from '../../shared/domain/plan-context.js';
import type { PendingHolder } from '../../shared/domain/pending-gate.js';
import { refused, type Decision } from '../../shared/domain/decision.js';
import type { StageAnswer, StageOperation } from '../../shared/queue/stage-jobs.js';
import { findOrg } from '../../shared/storage/books-read.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';
import type { JobContext } from '../job-context.js';
import { findStagedOperation } from '../../shared/storage/staged-operations.js';
import { findCurrentPolicy } from '../../shared/storage/approval-policies.js';
import { commitDecision, operationIdFor, pendingHolders, writtenAnswer } from './commit-decision.js';
import { crashIf } from '../test-faults.js';

export interface StagingJob<Op extends StageOperation, Books, Plan> {
  kind: StagedKind;
  /**
   * Reads only the records the rule needs; a missing record is for `decide` to
   * refuse. It needs nothing of the org, so its first reads go out beside the
   * org's (one store round trip fewer per job).
   */
  load(ctx: JobContext<Op>): Promise<Books>;
  /** The pure rule (shared/domain), given the org, the books and the job's request. */
  decide(books: Books, org: Org, ctx: JobContext<Op>): Decision<Plan>;
  /**
   * The plan's context (shared/domain/plan-context.ts), from the records this
   * job read; any further read only by `_id`. Asked for every answer with a
   * plan (staged, noop, the same plan pending). Absent: the context is `{}`.
   */
  context?: (books: Books, plan: Plan, org: Org, ctx: JobContext<Op>) => PlanContext | Promise<PlanContext>;
  /** Fields every non-refused result of this kind carries beside the common ones (a repair's `blockers`). */
  resultFields?: (decision: Decision<Plan>) => Record<string, unknown>;
  /**
   * For a kind whose rule only passes the pending gate last
   * (decideWithPending): `load` leaves `pending` empty and the holders are
   * read only when the decision without them is not `staged`. A `staged`
   * decision goes straight to taking its locks, and a live holder of any of
   * them meets it there with the very same gate (commit-decision.ts), so the
   * answer is the one the read would have given, one read round fewer.
   */
  pendingGate?: {
    keys(books: Books, ctx: JobContext<Op>): string[];
    withHolders(books: Books, holders: PendingHolder[]): Books;
  };
}

export type StagingJobRunner<Op extends StageOperation> = (ctx: JobContext<Op>) => Promise<StageAnswer>;

/** load → decide → commit, timed and logged once for every kind. */
export function stagingJob<Op extends StageOperation, Books, Plan>(
  job: StagingJob<Op, Books, Plan>,
): StagingJobRunner<Op> {
  return async (ctx) => {
    const started = Date.now();
    // First write wins: an attempt retried after a crash that finds this job's
    // operation already written answers it instead of deciding again. Only a
    // rerun can find one. Its read, the org's and the records' go out together:
    // reads decide nothing, so reading the records of a job that turns out
    // answered (or of an org that is gone) costs only the reads.
    const [written, org, books, policy] = await Promise.all([
      // A dry run writes no operation: there is none to find.
      ctx.rerun && !ctx.data.dry_run ? findStagedOperation(ctx.db, ctx.data.org_id, operationIdFor(ctx)) : null,
      findOrg(ctx.db, ctx.data.org_id),
      job.load(ctx),
      // What the new operation will need approved (docs/design/staged-lifecycle.md "Approval policies").
      findCurrentPolicy(ctx.db, ctx.data.org_id),
    ]);
    if (org) ctx.baseCurrency = org.base_currency;
    ctx.approvalPolicy = policy;
    if (written)
      return writtenAnswer(ctx, written, {
        ...job.resultFields?.({ outcome: 'existing', staged_operation_id: written._id }),
        context: written.context ?? {},
      });
    // A token whose organisation is gone: nothing to decide on.
    if (!org)
      return commitDecision(ctx, job.kind, refused('not_found', { resource: 'Organisation', id: ctx.data.org_id }), {});
    crashIf('stage:crash-after-read');
    const loadedMs = Date.now() - started;
    let decision = job.decide(books, org, ctx);
    if (job.pendingGate && decision.outcome !== 'staged') {
      // A dry run sees none here (pendingHolders keeps them for its warning) and decides as if its keys were free.
      const holders = await pendingHolders(ctx, job.pendingGate.keys(books, ctx));
      if (holders.length > 0) decision = job.decide(job.pendingGate.withHolders(books, holders), org, ctx);
    }
    ctx.log.info(
      { outcome: decision.outcome, load_ms: loadedMs, decide_ms: Date.now() - started - loadedMs },
      'decided',
    );
    return commitDecision(ctx, job.kind, decision, {
      ...job.resultFields?.(decision),
      ...(await contextFields(job, books, decision, org, ctx)),
    });
  };
}

/**
 * The context beside the plan (never in it: plan and plan_hash stay as
 * decided), for every answer that has a plan; a blocked or refused one has none.
 */
async function contextFields<Op extends StageOperation, Books, Plan>(
  job: StagingJob<Op, Books, Plan>,
  books: Books,
  decision: Decision<Plan>,
  org: Org,
  ctx: JobContext<Op>,
): Promise<{ context?: PlanContext }> {
  if (decision.outcome !== 'staged' && decision.outcome !== 'noop' && decision.outcome !== 'existing') return {};
  if (!job.context || decision.outcome === 'existing') return { context: {} };
  return { context: await job.context(books, decision.plan, org, ctx) };
}
