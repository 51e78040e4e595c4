// `Prefer: return=minimal` on review and apply calls (docs/reference/http-api.md
// §6.4): the operation without its plan, preconditions and context; everything
// else as the whole answer has it. Staging calls answer whole.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import type { PendingData, ReversalData, StagedOperationData } from '../helpers/answers.js';
import { call, poll } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, doc, docs, show } from '../helpers/staged.js';
import { RESULT_INLINE_LIMIT } from '../../shared/storage/staged-operation-codec.js';

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

/**
 * A FIFO repair staged by alice that links `n` unlinked transactions to as
 * many open invoices, one each: its apply's result (every link inserted, and
 * the link each action went to) is past RESULT_INLINE_LIMIT characters.
 */
async function stagedBigRepair(n: number) {
  const books = new Books();
  const account = books.account();
  const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < n; i += 1) {
    books.invoice(100, { entry_date: day(i) });
    books.txn(account, 100, { booking_date: day(i) });
  }
  await (await stack()).load(books.file);
  const who = await actors(books.orgId);
  let staged = await call<StagedOperationData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
    token: who.alice,
    body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: day(n) },
  });
  // On a loaded machine the plan can outlive the API's wait (202): its job's answer is the same answer.
  for (const until = Date.now() + 120_000; staged.status === 202 && Date.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    staged = await call<StagedOperationData>('GET', staged.headers.get('location')!, { token: who.alice });
  }
  expect(staged.status, JSON.stringify(staged.body).slice(0, 500)).to.equal(201);
  return { books, who, id: staged.body.data.staged_operation_id };
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

  it('an apply whose result is long answers it whole, lean or not, though the result is stored once', async function () {
    this.timeout(300_000);
    const n = 800;
    const { books, who, id } = await stagedBigRepair(n);
    expect((await approve(who.bob, id)).status).to.equal(200);
    const key = { 'idempotency-key': `apply-${id}` };
    const applied = await apply(who.bob, id, { ...key, ...MINIMAL });
    expect(applied.status, JSON.stringify(applied.body).slice(0, 500)).to.equal(200);
    const whole = await show(who.bob, id);
    expect(applied.body.data).to.deep.equal(withoutLeftOut(whole.body.data));
    const result = applied.body.data.result as { changes: unknown[]; links: unknown[] };
    expect(result.changes).to.have.length(n);
    expect(result.links).to.have.length(n);
    expect(JSON.stringify(result).length).to.be.above(RESULT_INLINE_LIMIT);
    // Stored once: in the claim that ended the apply, which the operation names; the job's answer holds it as null.
    const stored = await doc('staged_operations', id);
    expect(stored).to.have.property('result_claim');
    expect(stored).not.to.have.property('result_json');
    const [answer] = await docs('job_results', { org_id: books.orgId, result_from_operation: true });
    expect(answer, 'the apply job’s stored answer').to.not.equal(undefined);
    expect((JSON.parse(answer!.answer_json as string) as { data: { result: unknown } }).data.result).to.equal(null);
    // A replay of the lean call, and of the whole one, read it back from the operation.
    expect((await apply(who.bob, id, { ...key, ...MINIMAL })).body.data).to.deep.equal(applied.body.data);
    expect((await apply(who.bob, id, key)).body.data).to.deep.equal(whole.body.data);
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
