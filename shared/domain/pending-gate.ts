// Pending-operation scopes (docs/reference/http-api.md §6.3, §6.5). A staged plan
// locks its subject key and every entry and transaction it touches; the
// storage layer turns its locks into unique lock documents.
import { compareIds } from './books.js';
import { refused, type Decision, type ExistingDecision, type RefusedDecision, type PlanLocks } from './decision.js';

export type { PlanLocks };

/** A pending staged operation that holds part of what a plan locks. */
export interface PendingHolder {
  staged_operation_id: string;
  subject_key: string;
  plan_hash: string;
}

/**
 * With pending holders present: the same plan already pending for the same
 * subject key is `existing`; anything else is a `pending_operation` refusal
 * naming every holder.
 */
export function pendingDecision(
  holders: readonly PendingHolder[],
  samePlan: { subject_key: string; plan_hash: string } | null,
): ExistingDecision | RefusedDecision {
  const ids = [...new Set(holders.map((h) => h.staged_operation_id))].sort(compareIds);
  if (samePlan && ids.length === 1) {
    const holder = holders[0]!;
    if (holder.subject_key === samePlan.subject_key && holder.plan_hash === samePlan.plan_hash) {
      return { outcome: 'existing', staged_operation_id: holder.staged_operation_id };
    }
  }
  return refused('pending_operation', { staged_operation_ids: ids });
}

/**
 * The pending gate of a staging decision: with no pending holder the decision
 * stands; with one, a staged plan only serves to tell whether the very same
 * plan is already pending (`existing`), and any refusal after the gate becomes
 * `pending_operation`.
 */
export function decideWithPending<Plan>(pending: readonly PendingHolder[], planned: Decision<Plan>): Decision<Plan> {
  if (pending.length === 0) return planned;
  const samePlan =
    planned.outcome === 'staged' ? { subject_key: planned.locks.subject_key, plan_hash: planned.plan_hash } : null;
  return pendingDecision(pending, samePlan);
}
