// A stored staged operation as its public shape (docs/reference/http-api.md
// "Review and apply"; the type: shared/contract/staged-operation.ts).
import type { StagedOperationDetail } from '../contract/staged-operation.js';
import { KINDS, stagedAmount, stagedSummary } from '../kinds/registry.js';
import type { StagedOperationDoc } from './collections.js';

/**
 * `baseCurrency` is the organisation's: the currency of the amount where the
 * kind has none (docs/reference/http-api.md "Amount of each kind").
 */
export function stagedOperationDetail(doc: StagedOperationDoc, baseCurrency: string): StagedOperationDetail {
  return { ...operationView(doc), ...stagedAmount(doc.kind, doc.plan, doc.context ?? {}, baseCurrency) };
}

/** The view without its amount: what an event carries (docs/reference/webhooks.md). */
export function operationView(doc: StagedOperationDoc): Omit<StagedOperationDetail, 'amount_minor' | 'currency'> {
  return {
    staged_operation_id: doc._id,
    kind: doc.kind,
    status: doc.status,
    created_by: doc.created_by,
    created_at: doc.created_at,
    expires_at: doc.expires_at,
    input: doc.input,
    plan: doc.plan,
    plan_hash: doc.plan_hash,
    summary: stagedSummary(doc.kind, doc.plan),
    preconditions: doc.preconditions,
    // The staging item was written before history kept request ids: it is the operation's own.
    history: doc.history.map((h) => ({
      at: h.at,
      actor: h.actor,
      from: h.from,
      to: h.to,
      note: h.note,
      request_id: h.request_id ?? doc.request_id,
    })),
    result: doc.result ?? null,
    context: doc.context ?? {},
    // What approving it takes and who approved (docs/design/staged-lifecycle.md "Approval policies"); absent on operations staged before policies.
    ...(doc.approval ? { approval: doc.approval } : {}),
    // docs/design/staged-lifecycle.md "Reverts": a revert names what it reverts from staging on; a reverted operation its revert once applied.
    ...revertLinks(doc),
  };
}

function revertLinks(doc: StagedOperationDoc): { reverts?: string; reverted_by?: string } {
  const reverts = KINDS[doc.kind].reverts?.(doc.plan);
  return {
    ...(reverts === undefined ? {} : { reverts }),
    ...(doc.reverted_by === undefined ? {} : { reverted_by: doc.reverted_by }),
  };
}
