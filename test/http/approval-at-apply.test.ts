// docs/design/staged-lifecycle.md "Apply checks the policy again" on the real
// stack: an operation approved under one policy and applied under a tighter
// one answers 409 policy_changed with the new requirement, is `staged` again,
// and keeps the approvals that still qualify; approved again, it applies.
import { expect } from 'chai';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { setPolicy, type PolicyBody } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve, docs, show } from '../helpers/staged.js';

const reversePath = (entry: string): string => `/api/v1/cli/ledger/entries/${entry}/reverse/stage`;
const ANY_ONE: PolicyBody = {
  rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
  agents_may_approve: true,
  unattended: [],
};

async function approvedReversal(amountMinor: number) {
  const s = await stack();
  const books = new Books();
  const entry = books.invoice(amountMinor, { entry_date: '2026-02-03' });
  await s.load(books.file);
  await setPolicy(books.orgId, ANY_ONE);
  const review = ['staged:read', 'staged:approve', 'staged:apply'] as const;
  const who = {
    alice: await s.token(books.orgId, ['ledger:stage', 'staged:read'], 'alice'),
    bob: await s.token(books.orgId, [...review], 'bob'),
    dave: await s.token(books.orgId, [...review], 'dave'),
    bot: await s.token(books.orgId, [...review], 'agent:reviewer'),
  };
  const staged = await call<{ staged_operation_id: string }>('POST', reversePath(entry), {
    token: who.alice,
    body: { reversal_date: '2026-03-01', reason: 'duplicate' },
  });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  return { books, entry, who, id: staged.body.data.staged_operation_id };
}

const actors = (approval: unknown): string[] => (approval as ApprovalState).given.map((g) => g.actor);

async function expectPolicyChanged(token: string, id: string, approval: Partial<ApprovalState>, given: string[]) {
  const res = await apply(token, id);
  expect(res.status, JSON.stringify(res.body)).to.equal(409);
  expect(res.body.error.code).to.equal('policy_changed');
  expect(res.body.error.details.staged_operation_id).to.equal(id);
  expect(res.body.error.details.approval).to.deep.include(approval);
  expect(actors(res.body.error.details.approval)).to.deep.equal(given);
  const shown = (await show(token, id)).body.data;
  expect(shown.status).to.equal('staged');
  expect(shown.approval).to.deep.include(approval);
  expect(actors(shown.approval)).to.deep.equal(given);
}

describe('approval policies: apply checks the policy again', () => {
  it('a tightened rule: 409 policy_changed, staged again with the person who approved kept; a second person approves and it applies', async () => {
    const { books, entry, who, id } = await approvedReversal(1_000);
    expect((await approve(who.bob, id)).body.data.status).to.equal('approved');
    await setPolicy(books.orgId, { ...ANY_ONE, rules: [{ kinds: ['*'], approvals: 2, approvers: 'people' }] });
    await expectPolicyChanged(
      who.bob,
      id,
      { policy_version: 2, rule_index: 0, required: 2, approvers: 'people', remaining: 1 },
      ['bob'],
    );
    expect(await docs('ledger_entries', { reversal_of: entry })).to.have.length(0);
    // Still the same actor: refused; another person completes it.
    expect((await approve(who.bob, id)).body.error.code).to.equal('already_approved');
    const again = await approve(who.dave, id);
    expect(again.body.data.status, JSON.stringify(again.body)).to.equal('approved');
    const applied = await apply(who.dave, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');
    expect(await docs('ledger_entries', { reversal_of: entry })).to.have.length(1);
    const history = (applied.body.data.history as Array<{ from: string | null; to: string }>).map(
      (h) => `${h.from ?? ''}>${h.to}`,
    );
    expect(history).to.deep.equal([
      '>staged',
      'staged>approved',
      'approved>staged',
      'staged>approved',
      'approved>applying',
      'applying>applied',
    ]);
  });

  it('people where an agent approved: the agent no longer counts (nor may approve again); a person approves and it applies', async () => {
    const { books, who, id } = await approvedReversal(1_000);
    expect((await approve(who.bot, id)).body.data.status).to.equal('approved');
    await setPolicy(books.orgId, { ...ANY_ONE, rules: [{ kinds: ['*'], approvals: 1, approvers: 'people' }] });
    await expectPolicyChanged(who.bob, id, { policy_version: 2, required: 1, approvers: 'people', remaining: 1 }, []);
    expect((await approve(who.bot, id)).body.error.code).to.equal('approver_not_allowed');
    expect((await approve(who.bob, id)).body.data.status).to.equal('approved');
    expect((await apply(who.bob, id)).body.data.status).to.equal('applied');
  });

  it('a higher amount bracket: an operation of 6,000.00 needs the second approval the new bracket asks', async () => {
    const { books, who, id } = await approvedReversal(600_000);
    expect((await approve(who.bob, id)).body.data.status).to.equal('approved');
    await setPolicy(books.orgId, {
      ...ANY_ONE,
      rules: [
        { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'any' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
    });
    await expectPolicyChanged(who.dave, id, { policy_version: 2, rule_index: 0, required: 2, remaining: 1 }, ['bob']);
    expect((await approve(who.dave, id)).body.data.status).to.equal('approved');
    expect((await apply(who.dave, id)).body.data.status).to.equal('applied');
  });

  it('a policy that still holds what was given: apply goes ahead', async () => {
    const { books, who, id } = await approvedReversal(1_000);
    expect((await approve(who.bob, id)).body.data.status).to.equal('approved');
    await setPolicy(books.orgId, { ...ANY_ONE, agents_may_approve: false });
    expect((await apply(who.bob, id)).body.data.status).to.equal('applied');
  });
});
