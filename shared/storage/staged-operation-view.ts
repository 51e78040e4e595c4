// The public shape of a staged operation (docs/design/staged-lifecycle.md "Show"):
// what show, each list item, approve, reject and apply answer.
import type { Precondition } from '../domain/books.js';
import { stagedSummary } from '../domain/staged-summary.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { ApplyResult } from './staged-apply-state.js';
import type { StagedKind, StagedOperationDoc } from './collections.js';

export interface StagedHistoryView { at: string; actor: string; from: StagedStatus | null; to: StagedStatus; note: string | null; request_id: string }

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
  preconditions: Precondition[];
  history: StagedHistoryView[];
  /** Once apply ended: applied (with the ids written), failed or stale (with the error answered); else null. */
  result: ApplyResult | null;
}

export function stagedOperationDetail(doc: StagedOperationDoc): StagedOperationDetail {
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
    history: doc.history.map((h) => ({ at: h.at, actor: h.actor, from: h.from, to: h.to, note: h.note, request_id: h.request_id ?? doc.request_id })),
    result: doc.result ?? null,
  };
}
