// docs/design/staged-lifecycle.md "Approval policies" on the real stack:
// staging records what approving takes under the policy in force (each rule
// shape: by kind, by amount bracket, people only), each approval is counted
// until the requirement is met (N of M distinct actors), and the refusals come
// in their order: self_approval_forbidden, approver_not_allowed, already_approved.
import { expect } from 'chai';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { setPolicy, type PolicyBody } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { approve, docs, show } from '../helpers/staged.js';

const reversePath = (entry: string): string => `/api/v1/cli/ledger/entries/${entry}/reverse/stage`;
const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';

interface Org {
  books: Books;
  /** Stages (and holds staged:approve, to be refused as the creator). */
  alice: string;
  bob: string;
  dave: string;
  erin: string;
  /** An agent by its name, with staged:approve. */
  bot: string;
  entries: { big: string; small: string; more: string[] };
  account: string;
  txn: string;
}

async function org(policy: PolicyBody | null, flags: { require_distinct_approver?: boolean } = {}): Promise<Org> {
  const s = await stack();
  const books = new Books(flags);
  const account = books.account();
  const big = books.invoice(600_000, { entry_date: '2026-02-03' });
  const small = books.invoice(1_000, { entry_date: '2026-02-04' });
  // One pending reversal per entry: a race run needs an entry of its own.
  const more = Array.from({ length: 6 }, (_, i) => books.invoice(2_000 + i, { entry_date: '2026-02-06' }));
  const { txn } = books.linkedTxn(account, 3_000, { booking_date: '2026-02-05' });
  await s.load(books.file);
  if (policy) await setPolicy(books.orgId, policy);
  const review = ['staged:read', 'staged:approve', 'staged:apply'] as const;
  return {
    books,
    alice: await s.token(books.orgId, ['ledger:stage', 'bank:stage', 'policy:stage', ...review], 'alice'),
    bob: await s.token(books.orgId, [...review], 'bob'),
    dave: await s.token(books.orgId, [...review], 'dave'),
    erin: await s.token(books.orgId, [...review], 'erin'),
    bot: await s.token(books.orgId, [...review], 'agent:reviewer'),
    entries: { big, small, more },
    account,
    txn,
  };
}

async function stageReversal(o: Org, entry: string): Promise<{ id: string; approval: ApprovalState }> {
  const res = await call<{ staged_operation_id: string; approval: ApprovalState }>('POST', reversePath(entry), {
    token: o.alice,
    body: { reversal_date: '2026-03-01', reason: 'duplicate' },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { id: res.body.data.staged_operation_id, approval: res.body.data.approval };
}

const given = (approval: ApprovalState): string[] => approval.given.map((g) => g.actor);

async function approvalEvents(id: string): Promise<number> {
  return (await docs('audit_events', { staged_operation_id: id, 'event.type': 'staged_operation.approval_added' }))
    .length;
}

describe('approval policies: approving under the policy', () => {
  it('version 0 records one approval by anyone, and the one approval approves as before', async () => {
    const o = await org(null);
    const { id, approval } = await stageReversal(o, o.entries.small);
    expect(approval).to.deep.equal({
      policy_version: 0,
      rule_index: 0,
      required: 1,
      approvers: 'any',
      given: [],
      remaining: 1,
    });
    const approved = await approve(o.bot, id);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.data.status).to.equal('approved');
    expect(given(approved.body.data.approval as ApprovalState)).to.deep.equal(['agent:reviewer']);
    expect(await approvalEvents(id)).to.equal(0);
  });

  it('a rule by kind: a reversal needs 2 of the reviewers, a reconciliation 1; each approval is an event, the last one also approved', async () => {
    const o = await org({
      rules: [
        { kinds: ['ledger_reversal'], approvals: 2, approvers: 'any' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: true,
      unattended: [],
    });
    const { id, approval } = await stageReversal(o, o.entries.small);
    expect(approval).to.deep.equal({
      policy_version: 1,
      rule_index: 0,
      required: 2,
      approvers: 'any',
      given: [],
      remaining: 2,
    });
    const first = await approve(o.bob, id, 'looks right');
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.data.status).to.equal('staged');
    expect(first.body.data.approval).to.deep.include({ remaining: 1 });
    expect(given(first.body.data.approval as ApprovalState)).to.deep.equal(['bob']);
    expect(await approvalEvents(id)).to.equal(1);
    const second = await approve(o.dave, id);
    expect(second.body.data.status).to.equal('approved');
    expect(given(second.body.data.approval as ApprovalState)).to.deep.equal(['bob', 'dave']);
    expect(second.body.data.approval).to.deep.include({ remaining: 0 });
    // The last approval is an approval_added event too, and then the transition's approved event.
    expect(await approvalEvents(id)).to.equal(2);
    expect(await docs('audit_events', { staged_operation_id: id, to: 'approved' })).to.have.length(1);
    const feed = (await docs('audit_events', { staged_operation_id: id }))
      .filter((e) => e.event !== undefined)
      .sort((a, b) => (a.event as { sequence: number }).sequence - (b.event as { sequence: number }).sequence)
      .map((e) => [(e.event as { type: string }).type, e.actor]);
    expect(feed).to.deep.equal([
      ['staged_operation.staged', 'alice'],
      ['staged_operation.approval_added', 'bob'],
      ['staged_operation.approval_added', 'dave'],
      ['staged_operation.approved', 'dave'],
    ]);
    const shown = await show(o.erin, id);
    expect(given(shown.body.data.approval as ApprovalState)).to.deep.equal(['bob', 'dave']);

    const rec = await call<{ approval: ApprovalState }>('POST', RECONCILE, {
      token: o.alice,
      body: {
        bank_account_id: o.account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 3_000, currency: 'EUR' },
        transaction_ids: [o.txn],
      },
    });
    expect(rec.status, JSON.stringify(rec.body)).to.equal(201);
    expect(rec.body.data.approval).to.deep.include({ rule_index: 1, required: 1 });
  });

  it('a rule by amount bracket: a reversal of 6,000.00 takes the 2-approval rule, one of 10.00 the next', async () => {
    const o = await org({
      rules: [
        { kinds: ['*'], min_amount_minor: 500_000, approvals: 2, approvers: 'any' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: true,
      unattended: [],
    });
    const big = await stageReversal(o, o.entries.big);
    expect(big.approval).to.deep.include({ rule_index: 0, required: 2 });
    const small = await stageReversal(o, o.entries.small);
    expect(small.approval).to.deep.include({ rule_index: 1, required: 1 });
    expect((await approve(o.bob, small.id)).body.data.status).to.equal('approved');
    expect((await approve(o.bob, big.id)).body.data.status).to.equal('staged');
  });

  it('people only: an agent is refused 403 approver_not_allowed, a person approves', async () => {
    const o = await org({
      rules: [{ kinds: ['*'], approvals: 1, approvers: 'people' }],
      agents_may_approve: true,
      unattended: [],
    });
    const { id, approval } = await stageReversal(o, o.entries.small);
    expect(approval.approvers).to.equal('people');
    const refused = await approve(o.bot, id);
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.deep.include({
      code: 'approver_not_allowed',
      details: { staged_operation_id: id, actor: 'agent:reviewer', approvers: 'people', agents_may_approve: true },
    });
    expect((await show(o.bob, id)).body.data.approval).to.deep.include({ given: [], remaining: 1 });
    expect((await approve(o.bob, id)).body.data.status).to.equal('approved');
  });

  it('agents_may_approve false: no agent counts, even under a rule for anyone', async () => {
    const o = await org({
      rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }],
      agents_may_approve: false,
      unattended: [],
    });
    const { id } = await stageReversal(o, o.entries.small);
    const refused = await approve(o.bot, id);
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('approver_not_allowed');
    expect(refused.body.error.details).to.include({ agents_may_approve: false });
  });

  it('the refusals in order: the creator (even where the org lets creators approve) → 403, the same actor twice → 409', async () => {
    const o = await org(
      { rules: [{ kinds: ['*'], approvals: 2, approvers: 'people' }], agents_may_approve: false, unattended: [] },
      { require_distinct_approver: false },
    );
    const { id } = await stageReversal(o, o.entries.small);
    const self = await approve(o.alice, id);
    expect(self.status).to.equal(403);
    expect(self.body.error).to.deep.include({
      code: 'self_approval_forbidden',
      details: { staged_operation_id: id, created_by: 'alice' },
    });
    expect((await approve(o.bob, id)).status).to.equal(200);
    const twice = await approve(o.bob, id);
    expect(twice.status).to.equal(409);
    expect(twice.body.error).to.deep.include({
      code: 'already_approved',
      details: { staged_operation_id: id, actor: 'bob' },
    });
    expect((await show(o.bob, id)).body.data).to.deep.include({ status: 'staged' });
  });

  it('a creator that is an agent is refused as the creator first (self_approval_forbidden before approver_not_allowed)', async () => {
    const s = await stack();
    const o = await org({
      rules: [{ kinds: ['*'], approvals: 1, approvers: 'people' }],
      agents_may_approve: false,
      unattended: [],
    });
    const agent = await s.token(o.books.orgId, ['ledger:stage', 'staged:read', 'staged:approve'], 'agent:stager');
    const staged = await call<{ staged_operation_id: string }>('POST', reversePath(o.entries.small), {
      token: agent,
      body: { reversal_date: '2026-03-01', reason: 'duplicate' },
    });
    expect(staged.status).to.equal(201);
    const self = await approve(agent, staged.body.data.staged_operation_id);
    expect(self.status).to.equal(403);
    expect(self.body.error.code).to.equal('self_approval_forbidden');
  });

  it('a policy change needs a person other than its creator under version 0, whatever require_distinct_approver says', async () => {
    const o = await org(null, { require_distinct_approver: false });
    const staged = await call<{ staged_operation_id: string; approval: ApprovalState }>(
      'POST',
      '/api/v1/cli/approval-policy/stage',
      {
        token: o.alice,
        body: { rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }], agents_may_approve: false, unattended: [] },
      },
    );
    expect(staged.status).to.equal(201);
    expect(staged.body.data.approval).to.deep.include({ policy_version: 0, required: 1, approvers: 'people' });
    const id = staged.body.data.staged_operation_id;
    expect((await approve(o.alice, id)).body.error.code).to.equal('self_approval_forbidden');
    const agent = await approve(o.bot, id);
    expect(agent.status).to.equal(403);
    expect(agent.body.error.code).to.equal('approver_not_allowed');
    expect((await approve(o.bob, id)).body.data.status).to.equal('approved');
  });

  it('races through the API: two actors at once both count; the same actor twice at once counts once (409 already_approved)', async () => {
    const o = await org({
      rules: [{ kinds: ['*'], approvals: 2, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
    });
    for (const entry of o.entries.more) {
      const { id } = await stageReversal(o, entry);
      const both = await Promise.all([approve(o.bob, id), approve(o.dave, id)]);
      expect(
        both.map((a) => a.status),
        JSON.stringify(both.map((a) => a.body)),
      ).to.deep.equal([200, 200]);
      const after = (await show(o.erin, id)).body.data;
      expect(after.status).to.equal('approved');
      expect(given(after.approval as ApprovalState).sort()).to.deep.equal(['bob', 'dave']);
      expect(await docs('audit_events', { staged_operation_id: id, to: 'approved' })).to.have.length(1);
    }
    const { id } = await stageReversal(o, o.entries.big);
    const twice = await Promise.all([approve(o.erin, id), approve(o.erin, id, 'again')]);
    expect(twice.map((a) => a.status).sort()).to.deep.equal([200, 409]);
    expect(twice.find((a) => a.status === 409)!.body.error.code).to.equal('already_approved');
    const after = (await show(o.erin, id)).body.data;
    expect(after.status).to.equal('staged');
    expect(given(after.approval as ApprovalState)).to.deep.equal(['erin']);
  });
});
