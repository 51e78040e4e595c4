// The public shape of a staged operation (docs/reference/http-api.md "Review and apply"):
// what show, each list item, approve, reject and apply answer, with the plan
// types of each kind. Types only: the review page (web/) imports them with
// `import type`, which the browser build erases.
import type { JournalWrite } from '../domain/apply-journal.js';
import type { LedgerLine, Precondition } from '../domain/books.js';
import type { LinkRepairPlan, RepairAction } from '../kinds/ledger-link-repair/plan.js';
import type {
  AccountContext,
  DocumentContext,
  EntryContext,
  PlanContext,
  RepairActionContext,
  TransactionContext,
} from '../domain/plan-context.js';
import type { ReconciliationPlan } from '../kinds/bank-reconcile/plan.js';
import type { ReversalPlan } from '../kinds/ledger-reversal/plan.js';
import type { StagedKind } from '../domain/staged-kind.js';
import type { StatementImportPlan } from '../kinds/statement-import/plan.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { ErrorBody } from '../errors.js';
import type { ApprovalPolicyPlan, ApprovalState } from '../domain/approval-policy.js';

export type { ApprovalPolicyPlan, ApprovalState };

export type { AccountContext, DocumentContext, EntryContext, PlanContext, RepairActionContext, TransactionContext };
export type {
  LedgerLine,
  LinkRepairPlan,
  RepairAction,
  ReconciliationPlan,
  ReversalPlan,
  StagedKind,
  StagedStatus,
  StatementImportPlan,
};
export type { InboxResolvePlan } from '../kinds/inbox-duplicates-resolve/plan.js';
export type { JournalEntryPlan, PlannedLine as JournalEntryLine } from '../kinds/journal-entry/plan.js';

export interface StagedHistoryView {
  at: string;
  actor: string;
  from: StagedStatus | null;
  to: StagedStatus;
  note: string | null;
  request_id: string;
}

export interface ApplyResult {
  status: 'applied' | 'failed' | 'stale';
  at: string;
  /** The actor whose apply ended it. */
  by: string;
  /** applied: every document written (ids), in journal order. */
  changes?: Array<{ action: JournalWrite['action']; collection: string; id: string }>;
  /** applied, a link repair: the link each `move` and `link` action's amount went to (old link id → this one), by action index. */
  links?: Array<{ action_index: number; link_id: string }>;
  /** failed and stale: the error the apply answered, answered again to every later apply. */
  error?: ErrorBody;
}

export interface StagedOperationDetail {
  staged_operation_id: string;
  kind: StagedKind;
  status: StagedStatus;
  created_by: string;
  created_at: string;
  expires_at: string;
  input: Record<string, unknown>;
  plan: unknown;
  plan_hash: string;
  summary: Record<string, unknown>;
  /** What its kind defines as the money it moves (docs/reference/http-api.md "Amount of each kind"), in integer minor units. */
  amount_minor: number;
  /** The amount's currency: the plan's, or the organisation's base currency where the kind has none. */
  currency: string;
  preconditions: Precondition[];
  history: StagedHistoryView[];
  /** Once apply ended: applied (with the ids written), failed or stale (with the error answered); else null. */
  result: ApplyResult | null;
  /**
   * The records the plan names as they stood at staging time, outside the
   * plan and its hash (docs/design/staged-lifecycle.md "Context"). In show,
   * approve, reject and apply; not in list items or events.
   */
  context?: PlanContext;
  /** A revert: the operation it reverts (docs/design/staged-lifecycle.md "Reverts"). */
  reverts?: string;
  /** An operation a revert of which was applied: that revert. */
  reverted_by?: string;
  /**
   * What approving it takes under the approval policy and who approved so far
   * (docs/design/staged-lifecycle.md "Approval policies"); absent on operations
   * staged before policies.
   */
  approval?: ApprovalState;
}

/** One page of GET /api/v1/cli/staged-operations. */
export interface StagedOperationPage {
  items: StagedOperationDetail[];
  next_cursor: string | null;
}
export type { RevertPlan, RevertChange } from '../kinds/revert/plan.js';
