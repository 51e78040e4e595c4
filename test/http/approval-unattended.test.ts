// docs/design/staged-lifecycle.md "Unattended limits" on the real stack: an actor
// the policy names for a kind gets its stagings approved by the policy itself
// (given `policy:vN`, status `approved` in the staging answer) while each
// amount and the UTC day's total stay within the limits; past either it waits
// for approvals like any other. Twenty parallel stagings never pass the day's
// limit. An unattended approval holds at apply while the policy still admits it.
import { expect } from 'chai';
import type { ApprovalState } from '../../shared/domain/approval-policy.js';
import { reservationKey, reserveUnattended } from '../../shared/storage/unattended-reservations.js';
import { setPolicy, type PolicyBody } from '../helpers/approval-policy.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve } from '../helpers/staged.js';

const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';

interface Staged {
  staged_operation_id: string;
  status: string;
  amount_minor: number;
  approval: ApprovalState;
}

const policy = (perOperation: number, perDay: number): PolicyBody => ({
  rules: [{ kinds: ['*'], approvals: 1, approvers: 'people' }],
  agents_may_approve: false,
  unattended: [
    { actor: 'agent:recon-bot', kinds: ['bank_reconcile'], max_amount_minor: perOperation, max_per_day_minor: perDay },
  ],
});

/** An org with one account per amount, each with one linked transaction of that amount (its reconciliation's amount). */
async function org(amounts: number[], body: PolicyBody) {
  const s = await stack();
  const books = new Books();
  const accounts = amounts.map((amount) => {
    const account = books.account();
    const { txn } = books.linkedTxn(account, amount, { booking_date: '2026-02-05' });
    return { account, txn, amount };
  });
  await s.load(books.file);
  const version = await setPolicy(books.orgId, body);
  return {
    books,
    accounts,
    version,
    bot: await s.token(books.orgId, ['bank:stage', 'staged:read', 'staged:apply'], 'agent:recon-bot'),
    other: await s.token(books.orgId, ['bank:stage', 'staged:read'], 'agent:other-bot'),
    bob: await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob'),
  };
}

const reconcile = (token: string, a: { account: string; txn: string; amount: number }) =>
  call<Staged>('POST', RECONCILE, {
    token,
    body: {
      bank_account_id: a.account,
      statement: { end_date: '2026-02-28', closing_balance_minor: a.amount, currency: 'EUR' },
      transaction_ids: [a.txn],
    },
  });

describe('approval policies: unattended limits', () => {
  it('within both limits approved at staging by policy:vN; past the per-operation or the day limit it waits; another actor always waits', async () => {
    const o = await org([30_000, 30_000, 60_000, 30_000, 10_000], policy(50_000, 80_000));
    const answers: Staged[] = [];
    for (const a of o.accounts.slice(0, 4)) {
      const res = await reconcile(o.bot, a);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      answers.push(res.body.data);
    }
    const [first, second, tooBig, pastDay] = answers;
    expect(first!.status).to.equal('approved');
    expect(first!.approval).to.deep.include({ policy_version: o.version, required: 1, remaining: 0 });
    expect(first!.approval.given.map((g) => g.actor)).to.deep.equal([`policy:v${o.version}`]);
    // 30,000 + 30,000 = 60,000 ≤ 80,000.
    expect(second!.status).to.equal('approved');
    // 60,000 > 50,000 per operation.
    expect(tooBig!.status).to.equal('staged');
    expect(tooBig!.approval).to.deep.include({ given: [], remaining: 1 });
    // 60,000 + 30,000 > 80,000 for the day.
    expect(pastDay!.status).to.equal('staged');
    // Another actor is not named: it waits.
    const other = await reconcile(o.other, o.accounts[4]!);
    expect(other.body.data.status).to.equal('staged');
    // What waits is approved by a person as any other.
    expect((await approve(o.bob, pastDay!.staged_operation_id)).body.data.status).to.equal('approved');
    // The unattended approval holds at apply while the policy admits it.
    const applied = await apply(o.bot, first!.staged_operation_id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');
  });

  it('an unattended approval the policy no longer admits: apply answers 409 policy_changed and it waits for a person', async () => {
    const o = await org([10_000], policy(50_000, 80_000));
    const staged = await reconcile(o.bot, o.accounts[0]!);
    expect(staged.body.data.status).to.equal('approved');
    await setPolicy(o.books.orgId, policy(5_000, 80_000));
    const res = await apply(o.bot, staged.body.data.staged_operation_id);
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error.code).to.equal('policy_changed');
    expect(res.body.error.details.approval).to.deep.include({ given: [], remaining: 1, approvers: 'people' });
    expect((await approve(o.bob, staged.body.data.staged_operation_id)).body.data.status).to.equal('approved');
    expect((await apply(o.bob, staged.body.data.staged_operation_id)).body.data.status).to.equal('applied');
  });

  it("the day is the staging's UTC day: a full day before does not count, what was reserved today does", async () => {
    const o = await org([30_000, 30_000], policy(50_000, 80_000));
    const { db } = await stack();
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
    const reserve = (day: string, id: string, amount: number) =>
      reserveUnattended(
        db,
        o.books.orgId,
        reservationKey(o.books.orgId, 'agent:recon-bot', day),
        id,
        amount,
        () => true,
        `${day}T12:00:00.000Z`,
      );
    // The day before used its whole limit: today starts afresh.
    expect(await reserve(yesterday, 'stg_yesterday', 80_000)).to.equal(true);
    const first = await reconcile(o.bot, o.accounts[0]!);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body.data.status).to.equal('approved');
    // Today: 30,000 (the first) + 30,000 reserved beside it = 60,000; another 30,000 would pass 80,000.
    expect(await reserve(today, 'stg_beside', 30_000)).to.equal(true);
    const second = await reconcile(o.bot, o.accounts[1]!);
    expect(second.status, JSON.stringify(second.body)).to.equal(201);
    expect(second.body.data.status).to.equal('staged');
  });

  it('twenty parallel stagings never pass the day limit: exactly as many as fit are approved', async () => {
    // 20 reconciliations of 10,000 each against a day of 55,000: five fit.
    const o = await org(
      Array.from({ length: 20 }, () => 10_000),
      policy(50_000, 55_000),
    );
    const answers = await Promise.all(o.accounts.map((a) => reconcile(o.bot, a)));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const statuses = answers.map((r) => r.body.data.status);
    expect(statuses.filter((s) => s === 'approved')).to.have.length(5);
    expect(statuses.filter((s) => s === 'staged')).to.have.length(15);
  });
});
