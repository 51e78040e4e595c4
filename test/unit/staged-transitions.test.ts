import { expect } from 'chai';
import {
  decideTransition,
  mayView,
  type StagedStatus,
  type TransitionRequest,
} from '../../shared/domain/staged-transitions.js';

const NOW = '2026-03-10T12:00:00.000Z';
const op = (status: StagedStatus, expires_at = '2026-03-17T12:00:00.000Z') => ({
  staged_operation_id: 'stg_1',
  status,
  created_by: 'alice',
  expires_at,
});
const req = (
  action: TransitionRequest['action'],
  actor = 'bob',
  require_distinct_approver = true,
): TransitionRequest => ({ action, actor, require_distinct_approver, now: NOW });
const refusal = (d: ReturnType<typeof decideTransition>) => {
  if (d.outcome !== 'refused') throw new Error(`expected a refusal, got ${d.outcome}`);
  return { code: d.code, details: d.details };
};

describe('staged operation transitions', () => {
  it('approves a staged operation by another actor: staged → approved', () => {
    expect(decideTransition(op('staged'), req('approve'))).to.deep.equal({
      outcome: 'transition',
      from: 'staged',
      to: 'approved',
    });
  });

  it('refuses self-approval when the org requires a distinct approver, allows it when not', () => {
    expect(refusal(decideTransition(op('staged'), req('approve', 'alice')))).to.deep.equal({
      code: 'self_approval_forbidden',
      details: { staged_operation_id: 'stg_1', created_by: 'alice' },
    });
    expect(decideTransition(op('staged'), req('approve', 'alice', false))).to.deep.equal({
      outcome: 'transition',
      from: 'staged',
      to: 'approved',
    });
  });

  it('answers invalid_transition to approve from any status but staged, before the self-approval rule', () => {
    for (const status of [
      'approved',
      'applying',
      'applied',
      'rejected',
      'expired',
      'failed',
      'stale',
    ] as StagedStatus[]) {
      expect(refusal(decideTransition(op(status), req('approve', 'alice')))).to.deep.equal({
        code: 'invalid_transition',
        details: { staged_operation_id: 'stg_1', status, action: 'approve' },
      });
    }
  });

  it('rejects staged and approved operations only', () => {
    expect(decideTransition(op('staged'), req('reject', 'alice'))).to.deep.equal({
      outcome: 'transition',
      from: 'staged',
      to: 'rejected',
    });
    expect(decideTransition(op('approved'), req('reject'))).to.deep.equal({
      outcome: 'transition',
      from: 'approved',
      to: 'rejected',
    });
    for (const status of ['applying', 'applied', 'rejected', 'expired', 'failed', 'stale'] as StagedStatus[]) {
      expect(refusal(decideTransition(op(status), req('reject'))).code).to.equal('invalid_transition');
    }
  });

  it('applies: not_approved when staged; starts when approved; resumes when applying; answers the record when ended; invalid_transition when rejected or expired', () => {
    expect(refusal(decideTransition(op('staged'), req('apply')))).to.deep.equal({
      code: 'not_approved',
      details: { staged_operation_id: 'stg_1', status: 'staged' },
    });
    expect(decideTransition(op('approved'), req('apply'))).to.deep.equal({
      outcome: 'transition',
      from: 'approved',
      to: 'applying',
    });
    expect(decideTransition(op('applying'), req('apply'))).to.deep.equal({ outcome: 'resume_apply' });
    for (const status of ['applied', 'failed', 'stale'] as const)
      expect(decideTransition(op(status), req('apply'))).to.deep.equal({ outcome: 'recorded', status });
    for (const status of ['rejected', 'expired'] as StagedStatus[])
      expect(refusal(decideTransition(op(status), req('apply'))).code).to.equal('invalid_transition');
  });

  it('expires a staged or approved operation past expires_at first, whatever was asked, and never one being applied', () => {
    const past = '2026-03-10T12:00:00.000Z'; // expires_at == now counts as expired
    for (const action of ['approve', 'reject', 'apply'] as const) {
      const d = decideTransition(op('approved', past), req(action));
      expect(d.outcome).to.equal('expire_first');
      if (d.outcome === 'expire_first')
        expect(d.then.details).to.deep.equal({ staged_operation_id: 'stg_1', status: 'expired', action });
    }
    expect(decideTransition(op('staged', past), req('expire', 'system'))).to.deep.equal({
      outcome: 'transition',
      from: 'staged',
      to: 'expired',
    });
    expect(decideTransition(op('staged'), req('expire', 'system'))).to.deep.equal({ outcome: 'none' });
    expect(decideTransition(op('applying', past), req('expire', 'system'))).to.deep.equal({ outcome: 'none' });
    expect(decideTransition(op('applying', past), req('apply'))).to.deep.equal({ outcome: 'resume_apply' });
  });

  it('shows an operation to its creator and to approvers only', () => {
    expect(mayView({ created_by: 'alice' }, { actor: 'alice', can_approve: false })).to.equal(true);
    expect(mayView({ created_by: 'alice' }, { actor: 'bob', can_approve: true })).to.equal(true);
    expect(mayView({ created_by: 'alice' }, { actor: 'carol', can_approve: false })).to.equal(false);
  });
});
