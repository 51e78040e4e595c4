// The `data` of each answer the HTTP tests read (docs/reference/http-api.md "Walk-through by example"),
// typed with the domain's own result types, so that a test reads the fields
// the contract promises and the compiler catches a misspelt one.
import type { Blocker } from '../../shared/domain/decision.js';
import type { DuplicateGroup } from '../../shared/domain/duplicate-groups.js';
import type { LinkRepairPlan } from '../../shared/kinds/ledger-link-repair/plan.js';
import type { ReconciliationPlan } from '../../shared/kinds/bank-reconcile/plan.js';
import type { ReversalPlan } from '../../shared/kinds/ledger-reversal/plan.js';
import type { ApplyResult } from '../../shared/storage/staged-apply-state.js';
import type { StagedOperationDetail } from '../../shared/contract/staged-operation.js';

/**
 * A staging answer: `staged` carries the operation (id, status, expiry),
 * `noop` the plan only, `blocked` neither plan nor hash (null).
 */
export interface StageData<Plan> {
  outcome: 'staged' | 'noop' | 'blocked';
  staged_operation_id: string;
  status: string;
  expires_at: string;
  plan: Plan;
  plan_hash: string;
}

export type ReversalData = StageData<ReversalPlan>;
export type ReconcileData = StageData<ReconciliationPlan>;
export type LinkRepairData = StageData<LinkRepairPlan> & { blockers: Blocker[] };

/** A staging call that outlived its wait: 202 and the job to poll. */
export interface PendingData {
  outcome: 'pending';
  job_id: string;
}

export interface DuplicatesPageData {
  groups: DuplicateGroup[];
  next_cursor: string | null;
}

/**
 * A staged operation as show, each list item, approve, reject and apply
 * answer it (docs/reference/http-api.md "Review and apply"). `result` is null until apply
 * ends; a test reads it (and `changes` or `error` in it) after asserting the
 * status, as it reads `error` of an envelope.
 */
export type StagedOperationData = Omit<StagedOperationDetail, 'result'> & { result: Required<ApplyResult> };

export interface StagedListData {
  items: StagedOperationData[];
  next_cursor: string | null;
}
