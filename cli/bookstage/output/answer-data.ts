// The `data` of the answers the readable output knows, typed with the
// domain's own result types (docs/reference/http-api.md "Walk-through by example"; the schemas in
// shared/schemas/ describe the same shapes). An envelope's `data` arrives as
// parsed JSON of unknown shape: the guards below pick a shape by the fields
// that tell the answers apart, and a renderer then reads the rest as the API
// documents it. A plan's kind comes with its answer (shared/kinds/registry.ts),
// never from its fields. The imports are types only: the CLI loads no server code.
import type { Blocker } from '../../../shared/domain/decision.js';
import type { LinkRepairPlan } from '../../../shared/kinds/ledger-link-repair/plan.js';
import type { ReconciliationPlan } from '../../../shared/kinds/bank-reconcile/plan.js';
import type { ReversalPlan } from '../../../shared/kinds/ledger-reversal/plan.js';
import type { DuplicateGroup } from '../../../shared/domain/duplicate-groups.js';
import type { StagedOperationDetail, StatementImportPlan } from '../../../shared/contract/staged-operation.js';

export type {
  Blocker,
  DuplicateGroup,
  LinkRepairPlan,
  ReconciliationPlan,
  ReversalPlan,
  StagedOperationDetail,
  StatementImportPlan,
};

/** A call that outlived its wait (202): the job to follow. */
export interface PendingData {
  outcome: 'pending';
  job_id: string;
}

/** A staging answer: `staged` names the new (or already pending) operation; `blocked` has no plan. */
export type StagingResultData =
  | {
      outcome: 'staged';
      staged_operation_id: string;
      status: string;
      expires_at: string;
      blockers?: Blocker[];
      plan: unknown;
      plan_hash: string;
    }
  | { outcome: 'noop'; blockers?: Blocker[]; plan: unknown; plan_hash: string }
  | { outcome: 'blocked'; blockers: Blocker[]; plan: null; plan_hash: null };

/** A dry run's answer (docs/reference/http-api.md §6.6): the plan a staging would stage, nothing stored. */
export interface DryRunData {
  dry_run: true;
  outcome: 'staged' | 'noop' | 'blocked';
  blockers?: Blocker[];
  plan: unknown;
  plan_hash: string | null;
  summary: Record<string, unknown> | null;
}

export const isDryRun = (data: unknown): data is DryRunData => fieldOf(data, 'dry_run') === true;

/** `value[key]` when `value` is a JSON object (or array), else undefined. */
export function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** Array.isArray that keeps the items `unknown` rather than `any`. */
export const isList = (value: unknown): value is unknown[] => Array.isArray(value);

export const isPending = (data: unknown): data is PendingData => fieldOf(data, 'outcome') === 'pending';

export const isDuplicatesPage = (data: unknown): data is { groups: DuplicateGroup[]; next_cursor: string | null } =>
  isList(fieldOf(data, 'groups'));

export const isStagedList = (data: unknown): data is { items: StagedOperationDetail[]; next_cursor: string | null } =>
  isList(fieldOf(data, 'items'));

export const isStagedOperation = (data: unknown): data is StagedOperationDetail =>
  Boolean(fieldOf(data, 'staged_operation_id') && fieldOf(data, 'kind') && isList(fieldOf(data, 'history')));

export function isStagingResult(data: unknown): data is StagingResultData {
  const outcome = fieldOf(data, 'outcome');
  return outcome === 'staged' || outcome === 'noop' || outcome === 'blocked';
}
