// The life of a staged operation (docs/design/staged-lifecycle.md): which action may
// move it from which status to which, and who may take it. Pure: the worker
// loads the operation and the org, this decides, storage performs the
// transition as a compare-and-set on `status`.
//
//   staged ──approve──> approved ──apply──> applying ──> applied | failed
//     │                   │                   (a precondition changed: stale, nothing written)
//     └──reject/expire────┴──> rejected | expired
import { refused, type RefusedDecision } from './decision.js';

/** Every status a staged operation can reach: the one list the type, the schemas and the event feed read. */
export const STAGED_STATUSES = [
  'staged',
  'approved',
  'applying',
  'applied',
  'rejected',
  'expired',
  'failed',
  'stale',
] as const;
export type StagedStatus = (typeof STAGED_STATUSES)[number];
export type LifecycleAction = 'approve' | 'reject' | 'apply' | 'expire';

/** States that hold the operation's plan locks. */
export const HOLDING_STATUSES: readonly StagedStatus[] = ['staged', 'approved', 'applying'];
/** States nothing leaves. Reaching one releases every plan lock of the operation. */
export const FINAL_STATUSES: readonly StagedStatus[] = ['applied', 'rejected', 'expired', 'failed', 'stale'];

export interface TransitionSubject {
  staged_operation_id: string;
  status: StagedStatus;
  created_by: string;
  /** ISO 8601 UTC. */
  expires_at: string;
}

export interface TransitionRequest {
  action: LifecycleAction;
  actor: string;
  /** The org's `require_distinct_approver` (on by default). */
  require_distinct_approver: boolean;
  /** ISO 8601 UTC: the instant the job runs. */
  now: string;
  /** The job asking made this transition already (its claim id is in the history): it answers what it did. */
  already_made?: boolean;
}

/**
 * What one action on one operation comes to: plain data, refusals as values
 * (the `refused` member of the staging Decision, shared/domain/decision.ts).
 * The worker's lifecycle frame (worker/operation/lifecycle-job.ts) commits it.
 */
export type TransitionDecision =
  /** Move `from` → `to` (the transition claim, then the write). */
  | { outcome: 'transition'; from: StagedStatus; to: StagedStatus }
  /** The operation outlived `expires_at`: expire it (from → expired), then answer `then`. */
  | { outcome: 'expire_first'; from: StagedStatus; then: RefusedDecision }
  /** An apply already under way (a crashed or parallel job): finish the same journal. */
  | { outcome: 'resume_apply' }
  /** Apply of an operation whose apply already ended: answer what was recorded. */
  | { outcome: 'recorded'; status: 'applied' | 'failed' | 'stale' }
  /** This job made the transition already (a retried job, a keyed replay joining it): answer the operation as it is. */
  | { outcome: 'answered' }
  /** Nothing to do (the sweep meets an operation that is not due). */
  | { outcome: 'none' }
  | RefusedDecision;

export function isExpired(subject: Pick<TransitionSubject, 'expires_at'>, now: string): boolean {
  return subject.expires_at <= now;
}

export function invalidTransition(
  subject: Pick<TransitionSubject, 'staged_operation_id' | 'status'>,
  action: LifecycleAction,
): RefusedDecision {
  return refused('invalid_transition', {
    staged_operation_id: subject.staged_operation_id,
    status: subject.status,
    action,
  });
}

/**
 * Decide one action on one operation. The order of the checks is the
 * contract: a job that made this very transition already answers it; an
 * operation past its expiry is expired first (whatever was asked); then the
 * status decides; the distinct-approver rule is checked last, so a final
 * operation answers `invalid_transition` to everyone.
 */
export function decideTransition(subject: TransitionSubject, request: TransitionRequest): TransitionDecision {
  const { status } = subject;
  const pending = status === 'staged' || status === 'approved';
  const expired = pending && isExpired(subject, request.now);

  if (request.already_made) return { outcome: 'answered' };
  if (request.action === 'expire') {
    return expired ? { outcome: 'transition', from: status, to: 'expired' } : { outcome: 'none' };
  }
  if (expired) {
    return {
      outcome: 'expire_first',
      from: status,
      then: invalidTransition({ ...subject, status: 'expired' }, request.action),
    };
  }

  switch (request.action) {
    case 'approve':
      if (status !== 'staged') return invalidTransition(subject, 'approve');
      if (request.require_distinct_approver && request.actor === subject.created_by) {
        return refused('self_approval_forbidden', {
          staged_operation_id: subject.staged_operation_id,
          created_by: subject.created_by,
        });
      }
      return { outcome: 'transition', from: 'staged', to: 'approved' };
    case 'reject':
      if (!pending) return invalidTransition(subject, 'reject');
      return { outcome: 'transition', from: status, to: 'rejected' };
    case 'apply':
      if (status === 'staged')
        return refused('not_approved', { staged_operation_id: subject.staged_operation_id, status });
      if (status === 'approved') return { outcome: 'transition', from: 'approved', to: 'applying' };
      if (status === 'applying') return { outcome: 'resume_apply' };
      if (status === 'applied' || status === 'failed' || status === 'stale') return { outcome: 'recorded', status };
      return invalidTransition(subject, 'apply');
  }
}

/** Whether `actor` may see the operation: its creator, or anyone holding staged:approve in its org. */
export function mayView(
  subject: Pick<TransitionSubject, 'created_by'>,
  viewer: { actor: string; can_approve: boolean },
): boolean {
  return viewer.can_approve || viewer.actor === subject.created_by;
}
