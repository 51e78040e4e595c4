// Governance changes under approval policies (docs/design/staged-lifecycle.md
// "Approval policies", "Closed periods") on the real stack: a policy change and
// a period close need a person who did not stage them, whatever the policy says
// (their kind modules say `governance: true`), and an actor is an agent by its
// token (`admin tokens create --agent`) as well as by its name.
import { expect } from 'chai';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { createToken } from '../../shared/storage/api-tokens.js';
import { setPolicy, type PolicyBody } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve } from '../helpers/staged.js';

interface Staged {
  staged_operation_id: string;
  status: string;
  approval: ApprovalState;
}

const review = ['staged:read', 'staged:approve', 'staged:apply'] as const;

/** An org whose policy admits agents under a rule for anyone: only the governance rule keeps them out. */
async function org(
  rules: PolicyBody['rules'] = [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
): Promise<{ books: Books; alice: string; bob: string; dave: string; byName: string; byToken: string }> {
  const s = await stack();
  const books = new Books();
  books.invoice(1_000, { entry_date: '2026-02-04' });
  await s.load(books.file);
  await setPolicy(books.orgId, { rules, agents_may_approve: true, unattended: [] });
  return {
    books,
    alice: await s.token(books.orgId, ['policy:stage', 'ledger:stage', ...review], 'alice'),
    bob: await s.token(books.orgId, [...review], 'bob'),
    dave: await s.token(books.orgId, [...review], 'dave'),
    byName: await s.token(books.orgId, [...review], 'agent:reviewer'),
    // An agent by its token alone: its name says nothing.
    byToken: (await createToken(s.db, { org_id: books.orgId, actor: 'recon-helper', scopes: [...review], agent: true }))
      .token,
  };
}

describe('approval policies: governance changes', () => {
  it('a period close: not its creator (403 self_approval_forbidden), no agent by name or token (403 approver_not_allowed), a person approves', async () => {
    const o = await org();
    const staged = await call<Staged>('POST', '/api/v1/cli/periods/close/stage', {
      token: o.alice,
      body: { through: '2026-01-31' },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    expect(staged.body.data.approval).to.deep.include({ policy_version: 1, required: 1, approvers: 'people' });
    const id = staged.body.data.staged_operation_id;
    expect((await approve(o.alice, id)).body.error.code).to.equal('self_approval_forbidden');
    for (const agent of [o.byName, o.byToken]) {
      const refused = await approve(agent, id);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error.code).to.equal('approver_not_allowed');
      expect(refused.body.error.details).to.include({ approvers: 'people', agents_may_approve: true });
    }
    const approved = await approve(o.bob, id);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.data.status).to.equal('approved');
    expect((await apply(o.bob, id)).body.data.status).to.equal('applied');
  });

  it('a policy change under a policy that admits agents: no agent counts for it; a person approves and it applies', async () => {
    const o = await org();
    const staged = await call<Staged>('POST', '/api/v1/cli/approval-policy/stage', {
      token: o.alice,
      body: { rules: [{ kinds: ['*'], approvals: 2, approvers: 'any' }], agents_may_approve: true, unattended: [] },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    for (const agent of [o.byName, o.byToken])
      expect((await approve(agent, id)).body.error.code).to.equal('approver_not_allowed');
    expect((await approve(o.bob, id)).body.data.status).to.equal('approved');
    expect((await apply(o.bob, id)).body.data.status).to.equal('applied');
    const policy = await call<{ version: number }>('GET', '/api/v1/cli/approval-policy', { token: o.bob });
    expect(policy.body.data.version).to.equal(2);
  });

  it('a rule for a governance kind that asks for more: a period close and a policy change wait for two people, agents still not counted', async () => {
    const o = await org([
      { kinds: ['period_close', 'approval_policy'], approvals: 2, approvers: 'any' },
      { kinds: ['*'], approvals: 1, approvers: 'any' },
    ]);
    const close = await call<Staged>('POST', '/api/v1/cli/periods/close/stage', {
      token: o.alice,
      body: { through: '2026-01-31' },
    });
    const change = await call<Staged>('POST', '/api/v1/cli/approval-policy/stage', {
      token: o.alice,
      body: { rules: [{ kinds: ['*'], approvals: 3, approvers: 'any' }], agents_may_approve: true, unattended: [] },
    });
    for (const staged of [close, change]) {
      expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
      expect(staged.body.data.approval).to.deep.include({
        policy_version: 1,
        rule_index: 0,
        required: 2,
        approvers: 'people',
        remaining: 2,
      });
      const id = staged.body.data.staged_operation_id;
      expect((await approve(o.byToken, id)).body.error.code).to.equal('approver_not_allowed');
      const first = await approve(o.bob, id);
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.data.status).to.equal('staged');
      expect(first.body.data.approval).to.deep.include({ remaining: 1 });
      const second = await approve(o.dave, id);
      expect(second.status, JSON.stringify(second.body)).to.equal(200);
      expect(second.body.data.status).to.equal('approved');
      expect(second.body.data.approval?.given.map((g) => g.actor)).to.deep.equal(['bob', 'dave']);
    }
  });

  it('an ordinary kind under the same policy: an agent by token approves it', async () => {
    const o = await org();
    const [entry] = o.books.file.ledger_entries;
    const staged = await call<Staged>('POST', `/api/v1/cli/ledger/entries/${entry!.id}/reverse/stage`, {
      token: o.alice,
      body: { reversal_date: '2026-03-01', reason: 'duplicate' },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    expect(staged.body.data.approval).to.deep.include({ approvers: 'any' });
    const approved = await approve(o.byToken, staged.body.data.staged_operation_id);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.data.status).to.equal('approved');
  });
});
