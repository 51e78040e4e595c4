// Pending-operation scopes (DESIGN §5 "Staging calls", §6). A staged plan
// claims its scope key and every entry and transaction it touches; the
// storage layer turns a claim into unique lock documents.
import { AppError } from '../errors.js';
import { compareIds } from './books.js';
import { fail, ok, type Result } from './result.js';

export interface ScopeClaim {
  /** e.g. `reverse:le_1`, `repair:ba_main:cp_1`, `reconcile:ba_main` (the org prefix is added by storage). */
  scope_key: string;
  entry_ids: string[];
  transaction_ids: string[];
}

/** A pending staged operation that holds part of a scope. */
export interface PendingHolder {
  staged_operation_id: string;
  scope_key: string;
  plan_hash: string;
}

/**
 * With pending holders present: the same plan already pending for the same
 * scope key is returned as `existing`; anything else is a conflict.
 */
export function pendingDecision(
  holders: readonly PendingHolder[],
  samePlan: { scope_key: string; plan_hash: string } | null,
): Result<{ outcome: 'existing'; staged_operation_id: string }> {
  const ids = [...new Set(holders.map((h) => h.staged_operation_id))].sort(compareIds);
  if (samePlan && ids.length === 1) {
    const holder = holders[0]!;
    if (holder.scope_key === samePlan.scope_key && holder.plan_hash === samePlan.plan_hash) {
      return ok({ outcome: 'existing', staged_operation_id: holder.staged_operation_id });
    }
  }
  return fail(new AppError('pending_operation', { details: { staged_operation_ids: ids } }));
}

/**
 * The pending gate of a staging decision: with no pending holder the plan
 * stands; with one, the plan only serves to tell whether the very same plan is
 * already pending (`existing`), and any failure after the gate becomes
 * `pending_operation`.
 */
export function decideWithPending<T extends { claim: ScopeClaim; plan_hash: string }>(
  pending: readonly PendingHolder[],
  planned: Result<T>,
): Result<T | { outcome: 'existing'; staged_operation_id: string }> {
  if (pending.length === 0) return planned;
  const samePlan = planned.ok ? { scope_key: planned.value.claim.scope_key, plan_hash: planned.value.plan_hash } : null;
  return pendingDecision(pending, samePlan);
}
