// Reverts under approval policies (docs/design/staged-lifecycle.md "Reverts",
// "Approval policies") on the real stack: a rule governs a revert when it names
// `revert` or the reverted operation's kind (the first that matches wins), at
// the reverted operation's amount; and a policy change is reverted by putting
// the policy it replaced back in force as a new version, approved by a person.
import { expect } from 'chai';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { setPolicy, type PolicyBody } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve, reject } from '../helpers/staged.js';

const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const POLICY = '/api/v1/cli/approval-policy';
const STAGE_POLICY = '/api/v1/cli/approval-policy/stage';
const revertPath = (id: string): string => `/api/v1/cli/staged-operations/${id}/revert/stage`;

interface Staged {
  staged_operation_id: string;
  status: string;
  amount_minor: number;
  approval: ApprovalState;
  plan: Record<string, unknown>;
}

interface Org {
  books: Books;
  alice: string;
  bob: string;
  dave: string;
  bot: string;
  account: string;
  txn: string;
}

async function org(policy: PolicyBody | null): Promise<Org> {
  const s = await stack();
  const books = new Books();
  const account = books.account();
  const { txn } = books.linkedTxn(account, 3_000, { booking_date: '2026-02-05' });
  await s.load(books.file);
  if (policy) await setPolicy(books.orgId, policy);
  const review = ['staged:read', 'staged:approve', 'staged:apply'] as const;
  return {
    books,
    alice: await s.token(books.orgId, ['bank:stage', 'policy:stage', ...review], 'alice'),
    bob: await s.token(books.orgId, [...review], 'bob'),
    dave: await s.token(books.orgId, [...review], 'dave'),
    bot: await s.token(books.orgId, [...review], 'agent:reviewer'),
    account,
    txn,
  };
}

function expectStaged(res: { status: number; body: unknown }): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
}

/** A reconciliation of the one 30.00 transaction, staged by alice, approved by bob and dave as needed, applied. */
async function appliedReconciliation(o: Org): Promise<string> {
  const rec = await call<Staged>('POST', RECONCILE, {
    token: o.alice,
    body: {
      bank_account_id: o.account,
      statement: { end_date: '2026-02-28', closing_balance_minor: 3_000, currency: 'EUR' },
      transaction_ids: [o.txn],
    },
  });
  expectStaged(rec);
  const id = rec.body.data.staged_operation_id;
  for (const approver of [o.bob, o.dave].slice(0, rec.body.data.approval.required))
    expect((await approve(approver, id)).status).to.equal(200);
  const applied = await apply(o.bob, id);
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  return id;
}

async function stageRevert(o: Org, id: string): Promise<Staged> {
  const res = await call<Staged>('POST', revertPath(id), { token: o.alice, body: {} });
  expectStaged(res);
  return res.body.data;
}

describe('approval policies: reverts', () => {
  it('a rule naming `revert` governs a revert, at the reverted operation’s amount', async () => {
    const o = await org({
      rules: [
        { kinds: ['revert'], min_amount_minor: 3_000, approvals: 2, approvers: 'people' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: true,
      unattended: [],
    });
    const revert = await stageRevert(o, await appliedReconciliation(o));
    expect(revert.amount_minor).to.equal(3_000);
    expect(revert.approval).to.deep.include({ policy_version: 1, rule_index: 0, required: 2, approvers: 'people' });
  });

  it('a rule naming the reverted kind governs its revert; of two that match, the first wins', async () => {
    const byKind = await org({
      rules: [
        { kinds: ['ledger_reversal'], approvals: 4, approvers: 'any' },
        { kinds: ['bank_reconcile'], min_amount_minor: 3_000, approvals: 3, approvers: 'any' },
        { kinds: ['revert'], approvals: 2, approvers: 'any' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: true,
      unattended: [],
    });
    // The reconciliation itself needs 3; bob and dave are two: the third is the agent.
    const rec = await call<Staged>('POST', RECONCILE, {
      token: byKind.alice,
      body: {
        bank_account_id: byKind.account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 3_000, currency: 'EUR' },
        transaction_ids: [byKind.txn],
      },
    });
    expectStaged(rec);
    const id = rec.body.data.staged_operation_id;
    expect(rec.body.data.approval).to.deep.include({ rule_index: 1, required: 3 });
    for (const approver of [byKind.bob, byKind.dave, byKind.bot])
      expect((await approve(approver, id)).status).to.equal(200);
    expect((await apply(byKind.bob, id)).status).to.equal(200);
    const first = await stageRevert(byKind, id);
    expect(first.approval).to.deep.include({ rule_index: 1, required: 3 });

    // The rule naming `revert` comes first: it decides.
    const byRevert = await org({
      rules: [
        { kinds: ['revert'], approvals: 2, approvers: 'any' },
        { kinds: ['bank_reconcile'], approvals: 3, approvers: 'any' },
        { kinds: ['*'], approvals: 1, approvers: 'any' },
      ],
      agents_may_approve: true,
      unattended: [],
    });
    const rec2 = await call<Staged>('POST', RECONCILE, {
      token: byRevert.alice,
      body: {
        bank_account_id: byRevert.account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 3_000, currency: 'EUR' },
        transaction_ids: [byRevert.txn],
      },
    });
    expectStaged(rec2);
    const id2 = rec2.body.data.staged_operation_id;
    for (const approver of [byRevert.bob, byRevert.dave, byRevert.bot])
      expect((await approve(approver, id2)).status).to.equal(200);
    expect((await apply(byRevert.bob, id2)).status).to.equal(200);
    const second = await stageRevert(byRevert, id2);
    expect(second.approval).to.deep.include({ rule_index: 0, required: 2 });
  });

  it('reverting a policy change puts the policy it replaced back in force as the next version, approved by a person', async () => {
    const first: PolicyBody = {
      rules: [{ kinds: ['bank_reconcile'], min_amount_minor: 100, approvals: 2, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
    };
    const o = await org(first);
    const before = await call<Record<string, unknown>>('GET', POLICY, { token: o.bob });
    expect(before.body.data).to.deep.include({ version: 1 });

    // Version 2, staged by alice, approved by bob and applied.
    const change = await call<Staged>('POST', STAGE_POLICY, {
      token: o.alice,
      body: { rules: [{ kinds: ['*'], approvals: 2, approvers: 'any' }], agents_may_approve: true, unattended: [] },
    });
    expectStaged(change);
    const changeId = change.body.data.staged_operation_id;
    expect((await approve(o.bob, changeId)).status).to.equal(200);
    expect((await apply(o.bob, changeId)).status).to.equal(200);
    expect((await call<Record<string, unknown>>('GET', POLICY, { token: o.bob })).body.data).to.deep.include({
      version: 2,
    });

    // Its revert: the previous policy as version 3, a governance change (people only, not its creator).
    const revert = await stageRevert(o, changeId);
    expect(revert.plan).to.deep.equal({
      reverts: changeId,
      reverts_kind: 'approval_policy',
      changes: [
        {
          action: 'insert',
          collection: 'approval_policies',
          id: `${o.books.orgId}:0000000003`,
          doc: {
            policy_version: 3,
            rules: [{ kinds: ['bank_reconcile'], min_amount_minor: 100, approvals: 2, approvers: 'any' }],
            agents_may_approve: true,
            unattended: [],
            updated_at: null,
            updated_by_operation: null,
            reverts: changeId,
            version: 1,
          },
        },
      ],
    });
    expect(revert.approval).to.deep.include({ policy_version: 2, required: 2, approvers: 'people' });
    const revertId = revert.staged_operation_id;
    const byAgent = await approve(o.bot, revertId);
    expect(byAgent.status, JSON.stringify(byAgent.body)).to.equal(403);
    expect(byAgent.body.error.code).to.equal('approver_not_allowed');
    const byCreator = await approve(o.alice, revertId);
    expect(byCreator.body.error.code).to.equal('self_approval_forbidden');
    // Version 2 asks 2 approvals by anyone; reverting a governance change is one: people only.
    for (const approver of [o.bob, o.dave]) expect((await approve(approver, revertId)).status).to.equal(200);
    const applied = await apply(o.bob, revertId);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');

    const now = await call<Record<string, unknown>>('GET', POLICY, { token: o.bob });
    expect(now.status).to.equal(200);
    expect(now.body.data).to.deep.include({
      version: 3,
      rules: [{ kinds: ['bank_reconcile'], min_amount_minor: 100, approvals: 2, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
      updated_by_operation: revertId,
    });
    expect(now.body.data.updated_at).to.be.a('string');
    // The policy in force decides again: a reconciliation of 30.00 takes its 2-approval rule.
    const rec = await call<Staged>('POST', RECONCILE, {
      token: o.alice,
      body: {
        bank_account_id: o.account,
        statement: { end_date: '2026-02-28', closing_balance_minor: 3_000, currency: 'EUR' },
        transaction_ids: [o.txn],
      },
    });
    expectStaged(rec);
    expect(rec.body.data.approval).to.deep.include({ policy_version: 3, rule_index: 0, required: 2 });
  });

  it('a policy change is reverted only with policy:stage, the scope that stages it: 403 forbidden otherwise', async () => {
    const o = await org(null);
    const change = await call<Staged>('POST', STAGE_POLICY, {
      token: o.alice,
      body: { rules: [{ kinds: ['*'], approvals: 1, approvers: 'any' }], agents_may_approve: true, unattended: [] },
    });
    expectStaged(change);
    const id = change.body.data.staged_operation_id;
    expect((await approve(o.bob, id)).status).to.equal(200);
    expect((await apply(o.bob, id)).status).to.equal(200);
    // Erin sees every operation (staged:approve) and stages bank changes, not policies.
    const bank = await (await stack()).token(o.books.orgId, ['bank:stage', 'staged:read', 'staged:approve'], 'erin');
    const res = await call<Staged>('POST', revertPath(id), { token: bank, body: {} });
    expect(res.status, JSON.stringify(res.body)).to.equal(403);
    expect(res.body.error.code).to.equal('forbidden');
    expect(res.body.error.details).to.deep.equal({ required_scope: 'policy:stage' });
  });

  it('the revert of a policy change locks the policy as a change does: one of them pending at a time', async () => {
    const o = await org(null);
    const changeBody = (approvals: number) => ({
      rules: [{ kinds: ['*'], approvals, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
    });
    const change = await call<Staged>('POST', STAGE_POLICY, { token: o.alice, body: changeBody(1) });
    expectStaged(change);
    const id = change.body.data.staged_operation_id;
    expect((await approve(o.bob, id)).status).to.equal(200);
    expect((await apply(o.bob, id)).status).to.equal(200);

    const revertId = (await stageRevert(o, id)).staged_operation_id;
    const next = await call<Staged>('POST', STAGE_POLICY, { token: o.alice, body: changeBody(2) });
    expect(next.status, JSON.stringify(next.body)).to.equal(409);
    expect(next.body.error.code).to.equal('pending_operation');
    expect(next.body.error.details).to.deep.include({ staged_operation_ids: [revertId] });

    // The other way round: a change pending, the revert waits for it.
    expect((await reject(o.bob, revertId, 'not now')).status).to.equal(200);
    const pending = await call<Staged>('POST', STAGE_POLICY, { token: o.alice, body: changeBody(3) });
    expectStaged(pending);
    const refused = await call<Staged>('POST', revertPath(id), { token: o.alice, body: {} });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.error.code).to.equal('pending_operation');
    expect(refused.body.error.details).to.deep.include({
      staged_operation_ids: [pending.body.data.staged_operation_id],
    });
  });

  it('a policy change is not reverted once a later change is in force: changed_since_apply', async () => {
    const o = await org(null);
    const stageAndApply = async (approvals: number): Promise<string> => {
      const res = await call<Staged>('POST', STAGE_POLICY, {
        token: o.alice,
        body: { rules: [{ kinds: ['*'], approvals, approvers: 'any' }], agents_may_approve: true, unattended: [] },
      });
      expectStaged(res);
      const id = res.body.data.staged_operation_id;
      expect((await approve(o.bob, id)).status).to.equal(200);
      expect((await apply(o.bob, id)).status).to.equal(200);
      return id;
    };
    const v1 = await stageAndApply(1);
    await stageAndApply(2);
    const res = await call<Staged>('POST', revertPath(v1), { token: o.alice, body: {} });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('changed_since_apply');
    expect(res.body.error.details).to.deep.include({ ids: [`${o.books.orgId}:0000000002`] });
  });

  it('once the later change is reverted, the earlier one can be: the policy before it is back in force', async () => {
    const o = await org(null);
    const before = (await call<Record<string, unknown>>('GET', POLICY, { token: o.bob })).body.data;
    /** Approved by as many people as it requires (bob, then dave), applied. */
    const approveApply = async (staged: Staged): Promise<void> => {
      const id = staged.staged_operation_id;
      for (const approver of [o.bob, o.dave].slice(0, staged.approval.required))
        expect((await approve(approver, id)).status).to.equal(200);
      const applied = await apply(o.bob, id);
      expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    };
    const change = async (approvals: number): Promise<string> => {
      const res = await call<Staged>('POST', STAGE_POLICY, {
        token: o.alice,
        body: { rules: [{ kinds: ['*'], approvals, approvers: 'any' }], agents_may_approve: true, unattended: [] },
      });
      expectStaged(res);
      await approveApply(res.body.data);
      return res.body.data.staged_operation_id;
    };
    const first = await change(1);
    const second = await change(2);
    await approveApply(await stageRevert(o, second));
    // In force: what the first change made (version 3), so its revert puts back the policy before it.
    const revert = await call<Staged>('POST', revertPath(first), { token: o.alice, body: {} });
    expect(revert.status, JSON.stringify(revert.body)).to.equal(201);
    await approveApply(revert.body.data);
    const after = (await call<Record<string, unknown>>('GET', POLICY, { token: o.bob })).body.data;
    const policy = ({ rules, agents_may_approve, unattended }: Record<string, unknown>) => ({
      rules,
      agents_may_approve,
      unattended,
    });
    expect(after).to.deep.include({ version: 4, updated_by_operation: revert.body.data.staged_operation_id });
    expect(policy(after)).to.deep.equal(policy(before));
  });
});
