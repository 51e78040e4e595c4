// The life of a staged operation (docs/design/staged-lifecycle.md): which action may
// move it from which status to which, and who may take it. Pure: the worker
// loads the operation and the org, this decides, storage performs the
// transition as a compare-and-set on `status`.
//
//   staged ──approve──> approved ──apply──> applying ──> applied | failed
//     │                   │                   (a precondition changed: stale, nothing written)
//     └──reject/expire────┴──> rejected | expired
import { AppError } from '../errors.js';

export type StagedStatus = 'staged' | 'approved' | 'applying' | 'applied' | 'rejected' | 'expired' | 'failed' | 'stale';
export type LifecycleAction = 'approve' | 'reject' | 'apply' | 'expire';

/** States that hold the operation's scope locks. */
export const HOLDING_STATUSES: readonly StagedStatus[] = ['staged', 'approved', 'applying'];
/** States nothing leaves. Reaching one releases every scope lock of the operation. */
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
}

export type TransitionDecision =
  /** Move `from` → `to` (compare-and-set on `from`). */
  | { kind: 'transition'; from: StagedStatus; to: StagedStatus }
  /** The operation outlived `expires_at`: expire it (from → expired), then answer `then`. */
  | { kind: 'expire_first'; from: StagedStatus; then: AppError }
  /** An apply already under way (a crashed or parallel job): finish the same journal. */
  | { kind: 'resume_apply' }
  /** Apply of an operation whose apply already ended: answer what was recorded. */
  | { kind: 'recorded'; status: 'applied' | 'failed' | 'stale' }
  /** Nothing to do (the sweep meets an operation that is not due). */
  | { kind: 'none' }
  | { kind: 'refuse'; error: AppError };

export function isExpired(subject: Pick<TransitionSubject, 'expires_at'>, now: string): boolean {
  return subject.expires_at <= now;
}

export function invalidTransition(subject: Pick<TransitionSubject, 'staged_operation_id' | 'status'>, action: LifecycleAction): AppError {
  return new AppError('invalid_transition', { details: { staged_operation_id: subject.staged_operation_id, status: subject.status, action } });
}

/**
 * Decide one action on one operation. The order of the checks is the
 * contract: an operation past its expiry is expired first (whatever was
 * asked); then the status decides; the distinct-approver rule is checked last,
 * so a final operation answers `invalid_transition` to everyone.
 */
export function decideTransition(subject: TransitionSubject, request: TransitionRequest): TransitionDecision {
  const { status } = subject;
  const pending = status === 'staged' || status === 'approved';
  const expired = pending && isExpired(subject, request.now);

  if (request.action === 'expire') {
    return expired ? { kind: 'transition', from: status, to: 'expired' } : { kind: 'none' };
  }
  if (expired) {
    return { kind: 'expire_first', from: status, then: invalidTransition({ ...subject, status: 'expired' }, request.action) };
  }

  switch (request.action) {
    case 'approve':
      if (status !== 'staged') return { kind: 'refuse', error: invalidTransition(subject, 'approve') };
      if (request.require_distinct_approver && request.actor === subject.created_by) {
        return { kind: 'refuse', error: new AppError('self_approval_forbidden', { details: { staged_operation_id: subject.staged_operation_id, created_by: subject.created_by } }) };
      }
      return { kind: 'transition', from: 'staged', to: 'approved' };
    case 'reject':
      if (!pending) return { kind: 'refuse', error: invalidTransition(subject, 'reject') };
      return { kind: 'transition', from: status, to: 'rejected' };
    case 'apply':
      if (status === 'staged') return { kind: 'refuse', error: new AppError('not_approved', { details: { staged_operation_id: subject.staged_operation_id, status } }) };
      if (status === 'approved') return { kind: 'transition', from: 'approved', to: 'applying' };
      if (status === 'applying') return { kind: 'resume_apply' };
      if (status === 'applied' || status === 'failed' || status === 'stale') return { kind: 'recorded', status };
      return { kind: 'refuse', error: invalidTransition(subject, 'apply') };
  }
}

/** Whether `actor` may see the operation: its creator, or anyone holding staged:approve in its org. */
export function mayView(subject: Pick<TransitionSubject, 'created_by'>, viewer: { actor: string; can_approve: boolean }): boolean {
  return viewer.can_approve || viewer.actor === subject.created_by;
}
