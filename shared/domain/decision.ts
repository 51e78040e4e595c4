// The one shape every staging decision takes (docs/design/architecture.md "One
// staging request"). A pure decide function returns a Decision; the worker's
// commit step writes it; the API's outcome mapper answers it. Plain data
// only: a Decision crosses no process boundary as a class instance.
import type { ErrorCode } from '../errors.js';
import type { Warning } from '../warnings.js';
import type { Precondition } from './books.js';

/** The plan locks a staged plan takes (docs/reference/http-api.md §6.3): its subject key and every entry and transaction it touches. */
export interface PlanLocks {
  /** e.g. `reverse:le_1`, `repair:ba_main:cp_1`, `reconcile:ba_main` (the org prefix is added by storage). */
  subject_key: string;
  entry_ids: string[];
  transaction_ids: string[];
  /** Inbox documents it writes (a journal entry's attached receipt). */
  document_ids?: string[];
  /**
   * Other kinds' subject keys it writes under, locked beside its own: a revert holds the reverted kind's
   * (docs/design/staged-lifecycle.md "Reverts"), so no plan of that subject is pending beside it.
   */
  other_subject_keys?: string[];
  /** The very same plan pending is a conflict too, not `already_staged` (a journal entry: one booking, staged once). */
  same_plan_conflicts?: boolean;
}

/** A blocker of a plan that cannot be staged until the books change (e.g. a repair's frozen links). */
export interface Blocker {
  code: string;
  /** Sorted by id. */
  ids: string[];
}

/** A new plan to stage: the locks it takes and the versions it read. */
export interface StagedDecision<Plan> {
  outcome: 'staged';
  plan: Plan;
  plan_hash: string;
  locks: PlanLocks;
  preconditions: Precondition[];
  warnings: Warning[];
}

/** The very same plan is already pending for the same subject: answer that operation, create nothing. */
export interface ExistingDecision {
  outcome: 'existing';
  staged_operation_id: string;
}

/** The books are already as the plan would leave them. */
export interface NoopDecision<Plan> {
  outcome: 'noop';
  plan: Plan;
  plan_hash: string;
  warnings: Warning[];
}

/** Nothing can be planned until the blockers are resolved in the books. */
export interface BlockedDecision {
  outcome: 'blocked';
  blockers: Blocker[];
  warnings: Warning[];
}

/** A rule refuses the request; `code` is a row of the error table. */
export interface RefusedDecision {
  outcome: 'refused';
  code: ErrorCode;
  details: Record<string, unknown>;
}

export type Decision<Plan> =
  StagedDecision<Plan> | ExistingDecision | NoopDecision<Plan> | BlockedDecision | RefusedDecision;

export const refused = (code: ErrorCode, details: Record<string, unknown> = {}): RefusedDecision => ({
  outcome: 'refused',
  code,
  details,
});

/** Whether the same request may succeed later (the error table's `retryable`). */
