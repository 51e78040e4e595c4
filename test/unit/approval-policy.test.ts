// The approval policy's rules, as pure functions with exact expected values.
import { expect } from 'chai';
import {
  addApproval,
  approverRefusal,
  checkAtApply,
  DEFAULT_POLICY,
  initialApproval,
  isAgent,
  requirementFor,
  unattendedAllowance,
  unattendedActor,
  type ApprovalPolicy,
  type ApprovalSubject,
} from '../../shared/domain/approval-policy.js';

const policy: ApprovalPolicy = {
  version: 3,
  rules: [
    { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' },
    { kinds: ['bank_reconcile'], approvals: 1, approvers: 'people' },
    { kinds: ['*'], approvals: 1, approvers: 'any' },
  ],
  agents_may_approve: true,
  unattended: [
    { actor: 'agent:recon-bot', kinds: ['ledger_link_repair'], max_amount_minor: 50_000, max_per_day_minor: 200_000 },
  ],
};

const subject = (over: Partial<ApprovalSubject> = {}): ApprovalSubject => ({
  kind: 'ledger_reversal',
  amount_minor: 600_000,
  created_by: 'alice',
  ...over,
});
const person = (actor: string) => ({ actor, agent_token: false });
const at = '2026-11-29T10:00:00.000Z';

describe('approval policy: which rule decides', () => {
  it('takes the first rule that governs the kind and whose minimum the amount reaches', () => {
    expect(requirementFor(policy, subject())).to.deep.equal({
      policy_version: 3,
      rule_index: 0,
      required: 2,
      approvers: 'people',
    });
  });

  it('passes a rule whose minimum the amount does not reach (an amount bracket)', () => {
    expect(requirementFor(policy, subject({ amount_minor: 499_999 }))).to.deep.equal({
      policy_version: 3,
      rule_index: 2,
      required: 1,
      approvers: 'any',
    });
    expect(requirementFor(policy, subject({ amount_minor: 500_000 })).rule_index).to.equal(0);
  });

  it('matches a revert by a rule naming the kind it reverts', () => {
    const revert = subject({ kind: 'statement_import', reverts_kind: 'bank_reconcile', amount_minor: 10 });
    expect(requirementFor(policy, revert).rule_index).to.equal(1);
  });

  it('falls back to one approval by anyone where no rule governs the operation', () => {
    const narrow: ApprovalPolicy = {
      ...policy,
      rules: [{ kinds: ['bank_reconcile'], approvals: 3, approvers: 'any' }],
    };
    expect(requirementFor(narrow, subject())).to.deep.equal({
      policy_version: 3,
      rule_index: -1,
      required: 1,
      approvers: 'any',
    });
  });

  it('is version 0 with one approval by anyone for an organisation without a policy', () => {
    expect(requirementFor(DEFAULT_POLICY, subject())).to.deep.equal({
      policy_version: 0,
      rule_index: 0,
      required: 1,
      approvers: 'any',
    });
  });
});

describe('approval policy: who may approve, in the contract order', () => {
  const state = initialApproval(requirementFor(policy, subject()));

  it('refuses the creator first, whatever else is wrong', () => {
    expect(
      approverRefusal(
        policy,
        { ...state, given: [{ actor: 'agent:x', at }] },
        subject({ created_by: 'agent:x' }),
        person('agent:x'),
        false,
      ),
    ).to.deep.equal({ code: 'self_approval_forbidden', details: { created_by: 'agent:x' } });
  });

  it('lets the creator approve under version 0 only when the organisation allows it', () => {
    const v0 = initialApproval(requirementFor(DEFAULT_POLICY, subject()));
    expect(approverRefusal(DEFAULT_POLICY, v0, subject(), person('alice'), false)).to.equal(null);
    expect(approverRefusal(DEFAULT_POLICY, v0, subject(), person('alice'), true)?.code).to.equal(
      'self_approval_forbidden',
    );
  });

  it('never lets the creator approve under a set policy, even where the organisation allows it', () => {
    expect(approverRefusal(policy, state, subject(), person('alice'), false)?.code).to.equal('self_approval_forbidden');
  });

  it('refuses an agent where the rule wants people, by name or by token', () => {
    expect(approverRefusal(policy, state, subject(), person('agent:bot'), false)).to.deep.equal({
      code: 'approver_not_allowed',
      details: { actor: 'agent:bot', approvers: 'people', agents_may_approve: true },
    });
    expect(approverRefusal(policy, state, subject(), { actor: 'bot', agent_token: true }, false)?.code).to.equal(
      'approver_not_allowed',
    );
  });

  it('refuses every agent where agents may not approve', () => {
    const strict = { ...policy, agents_may_approve: false };
    const any = initialApproval(requirementFor(strict, subject({ kind: 'statement_import' })));
    expect(
      approverRefusal(strict, any, subject({ kind: 'statement_import' }), person('agent:bot'), false)?.code,
    ).to.equal('approver_not_allowed');
    expect(approverRefusal(policy, any, subject({ kind: 'statement_import' }), person('agent:bot'), false)).to.equal(
      null,
    );
  });

  it('refuses the same actor twice', () => {
    const once = addApproval(state, { actor: 'bob', at });
    expect(approverRefusal(policy, once, subject(), person('bob'), false)).to.deep.equal({
      code: 'already_approved',
      details: { actor: 'bob' },
    });
  });

  it('tells an agent by its token or its name', () => {
    expect([
      isAgent(person('agent:x')),
      isAgent(person('agentx')),
      isAgent({ actor: 'x', agent_token: true }),
    ]).to.deep.equal([true, false, true]);
  });
});

describe('approval policy: N of M', () => {
  it('stays pending until the given reach the required, then is approved', () => {
    const start = initialApproval(requirementFor(policy, subject()));
    const one = addApproval(start, { actor: 'bob', at });
    expect([one.given.length, one.remaining, one.approved]).to.deep.equal([1, 1, false]);
    const two = addApproval(one, { actor: 'carol', at });
    expect([two.given.map((g) => g.actor), two.remaining, two.approved]).to.deep.equal([['bob', 'carol'], 0, true]);
  });
});

describe('approval policy: a change of the governance itself', () => {
  const close = subject({ kind: 'period_close', amount_minor: 0, created_by: 'agent:recon-bot', governance: true });

  it('wants people whatever the rule says, and never the creator, even under version 0', () => {
    expect(requirementFor(DEFAULT_POLICY, close)).to.deep.include({ approvers: 'people', required: 1 });
    const state = initialApproval(requirementFor(DEFAULT_POLICY, close));
    expect(approverRefusal(DEFAULT_POLICY, state, close, person('agent:recon-bot'), false)?.code).to.equal(
      'self_approval_forbidden',
    );
    expect(approverRefusal(DEFAULT_POLICY, state, close, person('agent:other'), false)?.code).to.equal(
      'approver_not_allowed',
    );
    expect(approverRefusal(DEFAULT_POLICY, state, close, person('bob'), false)).to.equal(null);
  });

  it('is never approved unattended, even for a listed actor within both limits', () => {
    const listed: ApprovalPolicy = { ...policy, unattended: [{ ...policy.unattended[0]!, kinds: ['period_close'] }] };
    expect(unattendedAllowance(listed, close, 0)).to.equal(null);
    expect(unattendedAllowance(listed, { ...close, governance: false }, 0)?.actor).to.equal('agent:recon-bot');
  });
});

describe('approval policy: unattended limits', () => {
  const repair = (amount_minor: number, created_by = 'agent:recon-bot') =>
    subject({ kind: 'ledger_link_repair', amount_minor, created_by });

  it('approves a listed actor and kind within both limits', () => {
    expect(unattendedAllowance(policy, repair(50_000), 150_000)?.actor).to.equal('agent:recon-bot');
  });

  it('does not past the per-operation limit', () => {
    expect(unattendedAllowance(policy, repair(50_001), 0)).to.equal(null);
  });

  it('does not past the day limit, counting this operation', () => {
    expect(unattendedAllowance(policy, repair(50_000), 150_001)).to.equal(null);
  });

  it('does not for another actor or another kind', () => {
    expect(unattendedAllowance(policy, repair(1, 'agent:other'), 0)).to.equal(null);
    expect(
      unattendedAllowance(
        policy,
        subject({ kind: 'bank_reconcile', amount_minor: 1, created_by: 'agent:recon-bot' }),
        0,
      ),
    ).to.equal(null);
  });

  it('records the policy version as the approving actor', () => {
    expect(unattendedActor(3)).to.equal('policy:v3');
  });
});

describe('approval policy: apply checks the policy in force', () => {
  const noAgents: ReadonlySet<string> = new Set();

  it('holds when what was given still meets the requirement', () => {
    expect(
      checkAtApply(
        policy,
        subject(),
        [
          { actor: 'bob', at },
          { actor: 'carol', at },
        ],
        noAgents,
      ),
    ).to.deep.equal({
      outcome: 'holds',
    });
  });

  it('asks for more after a tightened rule, keeping the approvals that still qualify', () => {
    const tightened: ApprovalPolicy = {
      ...policy,
      version: 4,
      rules: [{ kinds: ['*'], approvals: 3, approvers: 'people' }],
    };
    const given = [
      { actor: 'bob', at },
      { actor: 'agent:bot', at },
    ];
    expect(checkAtApply(tightened, subject({ kind: 'statement_import' }), given, new Set(['agent:bot']))).to.deep.equal(
      {
        outcome: 'policy_changed',
        approval: {
          policy_version: 4,
          rule_index: 0,
          required: 3,
          approvers: 'people',
          given: [{ actor: 'bob', at }],
          remaining: 2,
        },
      },
    );
  });

  it('drops a creator approval given under version 0 once a policy is set', () => {
    const check = checkAtApply(policy, subject({ kind: 'statement_import' }), [{ actor: 'alice', at }], noAgents);
    expect(check.outcome).to.equal('policy_changed');
  });

  it('keeps an unattended approval while the policy still admits it, and drops it otherwise', () => {
    const given = [{ actor: 'policy:v3', at }];
    const repair = subject({ kind: 'ledger_link_repair', amount_minor: 40_000, created_by: 'agent:recon-bot' });
    expect(checkAtApply(policy, repair, given, noAgents).outcome).to.equal('holds');
    const lowered = { ...policy, version: 4, unattended: [{ ...policy.unattended[0]!, max_amount_minor: 10_000 }] };
    expect(checkAtApply(lowered, repair, given, noAgents)).to.deep.equal({
      outcome: 'policy_changed',
      approval: { policy_version: 4, rule_index: 2, required: 1, approvers: 'any', given: [], remaining: 1 },
    });
  });
});
