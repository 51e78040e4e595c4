// The worker's side of each staged kind (docs/design/architecture.md "Kinds"): its
// staging job (load → decide → commit on worker/operation/staging-job.ts) and
// the hooks apply calls for it. Typed over StagedKind like the wire registry
// (shared/kinds/registry.ts), so a kind added to the union without its worker
// module fails tsc here, naming it.
import type { ChangedPrecondition, PeriodLocked } from '../shared/domain/preconditions.js';
import type { StageOperationOf } from '../shared/kinds/kind-module.js';
import { STAGED_KINDS, type StagedKind } from '../shared/kinds/registry.js';
import type { ApplyBooks } from '../shared/domain/apply-journal.js';
import type { RefusedDecision } from '../shared/domain/decision.js';
import type { StageAnswer } from '../shared/queue/stage-jobs.js';
import type { IsoDate } from '../shared/domain/books.js';
import { lockedReconciliation, type ReconciliationPlan } from '../shared/kinds/bank-reconcile/plan.js';
import { lockedReversal, type ReversalPlan } from '../shared/kinds/ledger-reversal/plan.js';
import { lockedImport } from '../shared/kinds/statement-import/apply-check.js';
import type { StatementImportPlan } from '../shared/kinds/statement-import/plan.js';
import type { StagedOperationDoc } from '../shared/storage/collections.js';
import { bumpInboxVersion } from '../shared/storage/inbox-version.js';
import type { JobContext } from './job-context.js';
import { stageInboxDuplicatesResolve } from './kinds/inbox-duplicates-resolve/stage.js';
import { inboxResolveApplyBooks } from './kinds/inbox-duplicates-resolve/apply.js';
import { stageLedgerReversal } from './kinds/ledger-reversal/stage.js';
import { stageLinkRepair } from './kinds/ledger-link-repair/stage.js';
import { stageReconciliation } from './kinds/bank-reconcile/stage.js';
import { importClashes } from './kinds/statement-import/apply.js';
import { stageStatementImport } from './kinds/statement-import/stage.js';
import { closeApplyBooks, closePending } from './kinds/period-close/apply.js';
import type { LockJudge } from './kinds/period-close/lock-judge.js';
import { stagePeriodClose } from './kinds/period-close/stage.js';
import { stageBankMatch } from './kinds/bank-match/stage.js';
import { lockedJournalEntry, type JournalEntryPlan } from '../shared/kinds/journal-entry/plan.js';
import { stageJournalEntry } from './kinds/journal-entry/stage.js';
import { journalEntryClashes } from './kinds/journal-entry/apply.js';
import { lockedRevert, type RevertPlan } from '../shared/kinds/revert/plan.js';
import { markReverted } from '../shared/storage/reverts.js';
import { findStagedOperation } from '../shared/storage/staged-operations.js';
import { reconcileRevert } from './kinds/bank-reconcile/revert.js';
import { repairRevert } from './kinds/ledger-link-repair/revert.js';
import { importRevert } from './kinds/statement-import/revert.js';
import { inboxResolveRevert } from './kinds/inbox-duplicates-resolve/revert.js';
import { matchRevert } from './kinds/bank-match/revert.js';
import { journalEntryRevert } from './kinds/journal-entry/revert.js';
import type { WorkerRevert } from './kinds/revert/hook.js';
import { stageRevertWith } from './kinds/revert/stage.js';
import { stageApprovalPolicy } from './kinds/approval-policy/stage.js';
import { approvalPolicyRevert } from './kinds/approval-policy/revert.js';

export interface WorkerKind<K extends StagedKind> {
  /** Its staging job: the job's input is the kind's own. */
  stage(ctx: JobContext<StageOperationOf<K>>): Promise<StageAnswer>;
  /** Apply's checks beyond the plan's preconditions: what changed that makes the plan stale. */
  applyClashes?(ctx: JobContext, op: StagedOperationDoc): Promise<ChangedPrecondition[]>;
  /**
   * Apply's lock-date check, pure: the records the plan writes that the organisation's lock date (read again by
   * apply, once) now covers, or null.
   */
  periodLocked?(plan: unknown, lockDate: IsoDate | null): PeriodLocked | null;
  /**
   * Apply's refusal of a plan that is not stale but may not be applied now (a period close while operations that
   * would book in its period are pending): answered as is, nothing written, the operation stays `approved`.
   */
  applyRefusal?(ctx: JobContext, op: StagedOperationDoc): Promise<Pick<RefusedDecision, 'code' | 'details'> | null>;
  /** What the kind's journal reads beyond the preconditions' records (a period close: its hash), read when apply starts. */
  applyBooks?(ctx: JobContext, op: StagedOperationDoc): Promise<Partial<ApplyBooks>>;
  /** After an apply ended `applied` (and again when a later apply finds it applied). */
  afterApplied?(ctx: JobContext, op: StagedOperationDoc): Promise<void>;
  /** What a revert of an applied operation of this kind checks and reads; absent: not_revertible (docs/design/staged-lifecycle.md "Reverts"). */
  revert?: WorkerRevert;
}

/** The revert's hooks of a reverted kind, looked up when a revert job runs. */
const revertOf = (kind: StagedKind): WorkerRevert | undefined => WORKER_KINDS[kind].revert;

export const WORKER_KINDS: { readonly [K in StagedKind]: WorkerKind<K> } = {
  // The lock date holds at apply for each kind that books a dated record (docs/design/staged-lifecycle.md
  // "Closed periods"); links and inbox documents are not dated records of the books.
  bank_reconcile: {
    stage: stageReconciliation,
    periodLocked: (plan, lockDate) => lockedReconciliation(plan as ReconciliationPlan, lockDate),
    revert: reconcileRevert,
  },
  ledger_link_repair: { stage: stageLinkRepair, revert: repairRevert },
  ledger_reversal: {
    stage: stageLedgerReversal,
    periodLocked: (plan, lockDate) => lockedReversal(plan as ReversalPlan, lockDate),
  },
  inbox_duplicates_resolve: {
    stage: stageInboxDuplicatesResolve,
    applyBooks: inboxResolveApplyBooks,
    // A plan that wrote to the inbox gives it a new version, so the next overview is computed afresh
    // (docs/design/duplicate-overview.md "The inbox version").
    afterApplied: async (ctx) => {
      await bumpInboxVersion(ctx.db, ctx.data.org_id);
    },
    revert: inboxResolveRevert,
  },
  statement_import: {
    stage: stageStatementImport,
    applyClashes: importClashes,
    periodLocked: (plan, lockDate) => lockedImport(plan as StatementImportPlan, lockDate),
    revert: importRevert,
  },
  // A revert cannot itself be reverted (no `revert`): stage the operation again instead.
  revert: {
    stage: stageRevertWith(revertOf),
    periodLocked: (plan, lockDate) =>
      lockedRevert(plan as RevertPlan, lockDate, revertOf((plan as RevertPlan).reverts_kind)?.rules ?? null),
    // The reverted operation names its revert, and its kind's after-apply runs again (a duplicate resolution's inbox version).
    afterApplied: async (ctx, op) => {
      const { reverts } = op.plan as RevertPlan;
      await markReverted(ctx.db, ctx.data.org_id, reverts, op._id);
      const reverted = await findStagedOperation(ctx.db, ctx.data.org_id, reverts);
      if (reverted) await WORKER_KINDS[reverted.kind].afterApplied?.(ctx, reverted);
    },
  },
  bank_match: { stage: stageBankMatch, revert: matchRevert },
  // Closing a period books nothing dated itself; it is refused while a pending operation would book in the period.
  period_close: {
    stage: (ctx) => stagePeriodClose(NEW_LOCK)(ctx),
    applyRefusal: (ctx, op) => closePending(ctx, op, NEW_LOCK),
    applyBooks: closeApplyBooks,
  },
  journal_entry: {
    stage: stageJournalEntry,
    applyClashes: journalEntryClashes,
    periodLocked: (plan, lockDate) => lockedJournalEntry(plan as JournalEntryPlan, lockDate),
    revert: journalEntryRevert,
  },
  // A policy change writes no dated record of the books; its revert puts the policy it replaced back in force.
  approval_policy: { stage: stageApprovalPolicy, revert: approvalPolicyRevert },
};

/**
 * What a new lock date would refuse among pending operations: each kind's own `periodLocked` judges its plans
 * (docs/design/staged-lifecycle.md "Closed periods"); a kind without the hook books nothing dated.
 */
const NEW_LOCK: LockJudge = {
  kinds: () => STAGED_KINDS.filter((kind) => WORKER_KINDS[kind].periodLocked !== undefined),
  refuses: (op, through) => (WORKER_KINDS[op.kind].periodLocked?.(op.plan, through) ?? null) !== null,
};
