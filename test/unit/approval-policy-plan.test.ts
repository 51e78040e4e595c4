// The policy change's pure planner (shared/kinds/approval-policy/plan.ts,
// docs/design/staged-lifecycle.md "Changing the policy"): the plan spells out
// every rule's minimum, builds on the version in force, takes the one plan
// lock of policy changes, and asking for the policy in force is a noop.
import { expect } from 'chai';
import { DEFAULT_POLICY, type ApprovalPolicy } from '../../shared/domain/approval-policy.js';
import { APPROVAL_POLICY_SUBJECT_KEY, decideApprovalPolicy } from '../../shared/kinds/approval-policy/plan.js';
import type { ApprovalPolicyStageInput } from '../../shared/kinds/approval-policy/schema.js';

const INPUT: ApprovalPolicyStageInput = {
  rules: [
    { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' },
    { kinds: ['*'], approvals: 1, approvers: 'any' },
  ],
  agents_may_approve: false,
  unattended: [],
};

describe('decideApprovalPolicy', () => {
  it('over version 0: staged as version 1, every minimum spelt out, the one policy lock, no preconditions', () => {
    const decision = decideApprovalPolicy(DEFAULT_POLICY, INPUT);
    expect(decision.outcome).to.equal('staged');
    if (decision.outcome !== 'staged') return;
    expect(decision.plan).to.deep.equal({
      base_version: 0,
      version: 1,
      rules: [
        { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' },
        { kinds: ['*'], min_amount_minor: 0, approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: false,
      unattended: [],
    });
    expect(decision.locks).to.deep.equal({
      subject_key: APPROVAL_POLICY_SUBJECT_KEY,
      entry_ids: [],
      transaction_ids: [],
    });
    expect(decision.preconditions).to.deep.equal([]);
    expect(decision.plan_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('the same request gives the same plan hash; another gives another', () => {
    const a = decideApprovalPolicy(DEFAULT_POLICY, INPUT);
    const b = decideApprovalPolicy(DEFAULT_POLICY, structuredClone(INPUT));
    const c = decideApprovalPolicy(DEFAULT_POLICY, { ...INPUT, agents_may_approve: true });
    expect(a.outcome === 'staged' && b.outcome === 'staged' && a.plan_hash === b.plan_hash).to.equal(true);
    expect(a.outcome === 'staged' && c.outcome === 'staged' && a.plan_hash !== c.plan_hash).to.equal(true);
  });

  it('the policy in force asked for again is a noop; version 0 asked for explicitly is a change (version 1)', () => {
    const current: ApprovalPolicy = {
      version: 3,
      rules: [
        { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: false,
      unattended: [],
    };
    const same = decideApprovalPolicy(current, INPUT);
    expect(same.outcome).to.equal('noop');
    if (same.outcome === 'noop') expect(same.plan).to.include({ base_version: 3, version: 4 });
    const explicit = decideApprovalPolicy(DEFAULT_POLICY, {
      rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
    });
    expect(explicit.outcome).to.equal('staged');
  });
});
