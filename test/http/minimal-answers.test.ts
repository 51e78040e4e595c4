// `Prefer: return=minimal` on review and apply calls (docs/reference/http-api.md
// §6.4): the operation without its plan, preconditions and context; everything
// else as the whole answer has it. Staging calls answer whole.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import type { PendingData, ReversalData, StagedOperationData } from '../helpers/answers.js';
import { call, poll } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, show } from '../helpers/staged.js';

const MINIMAL = { prefer: 'return=minimal' };
const LEFT_OUT = ['plan', 'preconditions', 'context'];

/** A paid invoice, its reversal staged by alice. */
async function stagedReversal() {
  const books = new Books();
  const account = books.account();
  const entry = books.invoice(4_200, { entry_date: '2026-02-03' });
  books.link(books.txn(account, 4_200), entry, 4_200);
  await (await stack()).load(books.file);
  const who = await actors(books.orgId);
  const staged = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
    token: who.alice,
    body: { reversal_date: '2026-03-01', reason: 'duplicate' },
    headers: MINIMAL,
  });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  return { who, staged, id: staged.body.data.staged_operation_id };
}

/** The whole operation as GET shows it, less the fields a minimal answer leaves out. */
function withoutLeftOut(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([k]) => !LEFT_OUT.includes(k)));
}

describe('Prefer: return=minimal', () => {
  afterEach(async () => {
    await (await stack()).startWorker();
  });

  it('a staging call ignores it: the plan is what it answers, and no Preference-Applied says otherwise', async () => {
    const { staged } = await stagedReversal();
    expect(staged.body.data.plan.reason).to.equal('duplicate');
    expect(staged.headers.get('preference-applied')).to.equal(null);
  });

  it('approve and apply answer the operation without plan, preconditions and context, and every other field as GET has it', async () => {
    const { who, id } = await stagedReversal();
    const approved = await approve(who.bob, id, undefined, MINIMAL);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.headers.get('preference-applied')).to.equal('return=minimal');
    expect(approved.body.data.status).to.equal('approved');
    for (const key of LEFT_OUT) expect(approved.body.data).to.not.have.property(key);

    const applied = await apply(who.bob, id, MINIMAL);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.headers.get('preference-applied')).to.equal('return=minimal');
    for (const key of LEFT_OUT) expect(applied.body.data).to.not.have.property(key);

    const whole = await show(who.bob, id);
    expect(whole.body.data.plan).to.be.an('object');
    expect(whole.body.data.preconditions).to.be.an('array').with.length.above(0);
    expect(applied.body.data).to.deep.equal(withoutLeftOut(whole.body.data));
    expect(applied.body.data.result).to.have.property('status', 'applied');
  });

  it('without it, apply answers the whole operation, plan and preconditions as GET shows them', async () => {
    const { who, id } = await stagedReversal();
    await approve(who.bob, id);
    const applied = await apply(who.bob, id);
    expect(applied.status).to.equal(200);
    expect(applied.headers.get('preference-applied')).to.equal(null);
    expect(applied.body.data).to.deep.equal((await show(who.bob, id)).body.data);
  });

  it('with wait=N both are applied; the job answers lean when polled with it, and whole without', async () => {
    const s = await stack();
    const { who, id } = await stagedReversal();
    await approve(who.bob, id);
    await s.stopWorker();
    const pending = await call<PendingData>('POST', `/api/v1/cli/staged-operations/${id}/apply`, {
      token: who.bob,
      headers: { prefer: 'wait=0, return=minimal' },
    });
    expect(pending.status).to.equal(202);
    expect(pending.headers.get('preference-applied')).to.equal('wait=0, return=minimal');
    await s.startWorker();
    const jobPath = pending.headers.get('location')!;
    const lean = await poll<StagedOperationData>(jobPath, who.bob, (a) => a.status !== 202, MINIMAL);
    expect(lean.status).to.equal(200);
    expect(lean.headers.get('preference-applied')).to.equal('return=minimal');
    expect(lean.body.data.status).to.equal('applied');
    for (const key of LEFT_OUT) expect(lean.body.data).to.not.have.property(key);
    const whole = await call<StagedOperationData>('GET', jobPath, { token: who.bob });
    expect(whole.body.data.plan).to.deep.equal((await show(who.bob, id)).body.data.plan);
    expect(withoutLeftOut(whole.body.data)).to.deep.equal(lean.body.data);
  });

  it('a keyed replay answers as its own request asks', async () => {
    const { who, id } = await stagedReversal();
    await approve(who.bob, id);
    const key = { 'idempotency-key': `apply-${id}` };
    const first = await apply(who.bob, id, { ...key, ...MINIMAL });
    expect(first.status).to.equal(200);
    expect(first.body.data).to.not.have.property('plan');
    const replay = await apply(who.bob, id, key);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.data.plan).to.deep.equal((await show(who.bob, id)).body.data.plan);
    const leanAgain = await apply(who.bob, id, { ...key, ...MINIMAL });
    expect(leanAgain.body.data).to.deep.equal(first.body.data);
  });
});
