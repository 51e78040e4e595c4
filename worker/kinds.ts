// The worker's side of each staged kind (docs/design/architecture.md "Kinds"): its
// staging job (load → decide → commit on worker/operation/staging-job.ts) and
// the hooks apply calls for it. Typed over StagedKind like the wire registry
// (shared/kinds/registry.ts), so a kind added to the union without its worker
// module fails tsc here, naming it.
import type { ChangedPrecondition, PeriodLocked } from '../shared/domain/preconditions.js';
import type { StageOperationOf } from '../shared/kinds/kind-module.js';
import type { StagedKind } from '../shared/kinds/registry.js';
import type { StageAnswer } from '../shared/queue/stage-jobs.js';
import type { IsoDate } from '../shared/domain/books.js';
import { lockedReconciliation, type ReconciliationPlan } from '../shared/domain/reconcile-checks.js';
import { lockedReversal, type ReversalPlan } from '../shared/domain/reversal-plan.js';
import { lockedImport } from '../shared/domain/statement-import/apply-check.js';
import type { StatementImportPlan } from '../shared/domain/statement-import/plan.js';
import type { StagedOperationDoc } from '../shared/storage/collections.js';
import { bumpInboxVersion } from '../shared/storage/inbox-version.js';
import type { JobContext } from './job-context.js';
import { stageInboxDuplicatesResolve } from './jobs/inbox-duplicates-resolve-stage.js';
import { stageLedgerReversal } from './jobs/ledger-reversal-stage.js';
import { stageLinkRepair } from './jobs/link-repair-stage.js';
import { stageReconciliation } from './jobs/reconcile-stage.js';
import { importClashes } from './jobs/statement-import-apply.js';
import { stageStatementImport } from './jobs/statement-import-stage.js';
import { stageApprovalPolicy } from './kinds/approval-policy/stage.js';

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
  /** After an apply ended `applied` (and again when a later apply finds it applied). */
  afterApplied?(ctx: JobContext, op: StagedOperationDoc): Promise<void>;
}

export const WORKER_KINDS: { readonly [K in StagedKind]: WorkerKind<K> } = {
  // The lock date holds at apply for each kind that books a dated record (docs/design/staged-lifecycle.md
  // "Closed periods"); links and inbox documents are not dated records of the books.
  bank_reconcile: {
    stage: stageReconciliation,
    periodLocked: (plan, lockDate) => lockedReconciliation(plan as ReconciliationPlan, lockDate),
  },
  ledger_link_repair: { stage: stageLinkRepair },
  ledger_reversal: {
    stage: stageLedgerReversal,
    periodLocked: (plan, lockDate) => lockedReversal(plan as ReversalPlan, lockDate),
  },
  inbox_duplicates_resolve: {
    stage: stageInboxDuplicatesResolve,
    // A plan that wrote to the inbox gives it a new version, so the next overview is computed afresh
    // (docs/design/duplicate-overview.md "The inbox version").
    afterApplied: async (ctx) => {
      await bumpInboxVersion(ctx.db, ctx.data.org_id);
    },
  },
  statement_import: {
    stage: stageStatementImport,
    applyClashes: importClashes,
    periodLocked: (plan, lockDate) => lockedImport(plan as StatementImportPlan, lockDate),
  },
  // A policy change writes no dated record of the books.
  approval_policy: { stage: stageApprovalPolicy },
};
