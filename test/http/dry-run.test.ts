// A dry run of every staging call (docs/reference/http-api.md §6.6): the
// plan a real staging would stage, with nothing stored and no lock taken.
import { expect } from 'chai';
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { API_ROUTES } from '../../shared/contract/routes.js';
import type { Blocker } from '../../shared/domain/decision.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import type { Warning } from '../../shared/warnings.js';
import type { PendingData, StagedListData, StageData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call, poll, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
const REPAIR = '/api/v1/cli/bank-matches/ledger-link-repair/stage';
const reversalPath = (entryId: string): string => `/api/v1/cli/ledger/entries/${entryId}/reverse/stage`;

/** A dry run's `data`. */
interface DryRunData {
  dry_run: true;
  outcome: 'staged' | 'noop' | 'blocked';
  plan: unknown;
  plan_hash: string | null;
  summary: Record<string, unknown> | null;
  warnings: Warning[];
  blockers?: Blocker[];
}

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const contractAjv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** The `data` of a 200 answer of `operation` matches the contract's 200 schema (shared/contract/routes.ts). */
function expectContract200(operation: string, data: unknown): void {
  const validate = contractAjv.compile(API_ROUTES.find((r) => r.operation === operation)!.success[200]!.data);
  expect(validate(data), `${operation}: ${JSON.stringify(validate.errors)}`).to.equal(true);
}

const SCOPES: TokenScope[] = ['bank:stage', 'ledger:stage', 'staged:read'];

/**
 * One org with something to stage of each kind: account `account` (opening
 * 100,000) has t1 +12,000 fully linked to receivable e1, and t2 +4,000 of
 * counterparty a unlinked beside the open receivable e2 of 4,000 (a repair
 * links them). Reconciling t1 alone closes at 112,000; e1 is reversible.
 */
async function books() {
  const b = new Books();
  const account = b.account({ opening_balance_minor: 100_000 });
  const t1 = b.linkedTxn(account, 12_000, { booking_date: '2026-02-10' });
  const e2 = b.invoice(4_000, { entry_date: '2026-02-15' });
  const t2 = b.txn(account, 4_000, { booking_date: '2026-03-05' });
  const s = await stack();
  await s.load(b.file);
  return { b, account, t1, e2, t2, token: await s.token(b.orgId, SCOPES) };
}

type Setup = Awaited<ReturnType<typeof books>>;

const reconcileBody = (x: Setup) => ({
  bank_account_id: x.account,
  statement: { end_date: '2026-02-28', closing_balance_minor: 112_000, currency: 'EUR' },
  transaction_ids: [x.t1.txn],
});
const repairBody = (x: Setup) => ({ bank_account_id: x.account, counterparty_id: x.b.cp('a'), as_of: '2026-03-31' });

const NOTHING = { staged_operations: 0, scope_locks: 0, job_results: 0, idempotency_keys: 0, audit_events: 0 };
type Stored = typeof NOTHING;

/** What the org holds of each thing a staging writes. */
async function stored(orgId: string): Promise<Stored> {
  const { db } = await stack();
  const out = { ...NOTHING };
  for (const name of Object.keys(out) as Array<keyof Stored>) {
    out[name] = await db.collection(name).countDocuments({ org_id: orgId });
  }
  return out;
}

async function listed(token: string): Promise<number> {
  const list = await call<StagedListData>('GET', '/api/v1/cli/staged-operations', { token });
  expect(list.status).to.equal(200);
  return list.body.data.items.length;
}

const kinds: Array<{
  kind: string;
  path: (x: Setup) => string;
  body: (x: Setup) => unknown;
  summary: (x: Setup) => Record<string, unknown>;
}> = [
  {
    kind: 'bank_reconcile',
    path: () => RECONCILE,
    body: reconcileBody,
    summary: () => ({
      transactions: 1,
      opening_balance_minor: 100_000,
      cleared_total_minor: 12_000,
      closing_balance_minor: 112_000,
      left_out: 0,
    }),
  },
  {
    kind: 'ledger_link_repair',
    path: () => REPAIR,
    body: repairBody,
    summary: () => ({
      moves: 0,
      links: 1,
      unlinks: 0,
      moved_minor: 0,
      linked_minor: 4_000,
      unlinked_minor: 0,
      unallocated_transaction_minor: 0,
      uncovered_entry_minor: 0,
    }),
  },
  {
    kind: 'ledger_reversal',
    path: (x) => reversalPath(x.t1.entry),
    body: () => ({ reversal_date: '2026-03-01', reason: 'wrong customer' }),
    summary: (x) => ({ ledger_entry_id: x.t1.entry, unlinks: 1, unlinked_minor: 12_000 }),
  },
];

describe('dry run of a staging call (?dry_run=true)', () => {
  for (const k of kinds) {
    it(`${k.kind}: answers 200 with the plan, hash and summary, stores nothing and takes no lock; the real staging that follows has the same plan and hash`, async () => {
      const x = await books();
      const dry = await call<DryRunData>('POST', `${k.path(x)}?dry_run=true`, { token: x.token, body: k.body(x) });
      expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
      expect(dry.headers.get('location')).to.equal(null);
      const data = dry.body.data;
      expect(data).to.include({ dry_run: true, outcome: 'staged' });
      expect(data).to.not.have.property('staged_operation_id');
      expect(data.plan_hash).to.match(/^[0-9a-f]{64}$/);
      expect(data.summary).to.deep.equal(k.summary(x));
      expect(data.warnings).to.deep.equal(dry.body.warnings);
      expectContract200(dry.body.operation!, data);
      expect(await stored(x.b.orgId)).to.deep.equal(NOTHING);
      expect(await listed(x.token)).to.equal(0);

      const real = await call<StageData<unknown>>('POST', k.path(x), { token: x.token, body: k.body(x) });
      expect(real.status, JSON.stringify(real.body)).to.equal(201);
      expect(real.body.data.plan).to.deep.equal(data.plan);
      expect(real.body.data.plan_hash).to.equal(data.plan_hash);
      expect(real.body.warnings).to.deep.equal(dry.body.warnings);
      expect(await listed(x.token)).to.equal(1);
    });
  }

  it('needs no Idempotency-Key, and one given is neither checked nor recorded: the same key then stages for real', async () => {
    const x = await books();
    const headers = { 'idempotency-key': `dry-${x.b.uid}` };
    const first = await call<DryRunData>('POST', `${RECONCILE}?dry_run=true`, {
      token: x.token,
      body: reconcileBody(x),
      headers,
    });
    // A different body under the same key is no reuse: the dry run recorded nothing.
    const other = await call<DryRunData>('POST', `${RECONCILE}?dry_run=true`, {
      token: x.token,
      body: { ...reconcileBody(x), note: 'other' },
      headers,
    });
    expect([first.status, other.status]).to.deep.equal([200, 200]);
    expect(other.headers.get('idempotent-replayed')).to.equal(null);
    expect(await stored(x.b.orgId)).to.deep.equal(NOTHING);
    const real = await call<StageData<unknown>>('POST', RECONCILE, { token: x.token, body: reconcileBody(x), headers });
    expect(real.status).to.equal(201);
    expect(real.headers.get('idempotent-replayed')).to.equal(null);
    expect(real.body.data.plan_hash).to.equal(first.body.data.plan_hash);
  });

  it('under a pending holder still answers the plan, with the warning pending_operation naming the holder (a different plan, and the very same one)', async () => {
    const x = await books();
    const held = await call<StageData<unknown>>('POST', reversalPath(x.t1.entry), {
      token: x.token,
      body: { reason: 'first' },
    });
    expect(held.status).to.equal(201);
    const holder = held.body.data.staged_operation_id;
    const before = await stored(x.b.orgId);

    // The pending gate of a reversal (read only when it can change the answer).
    const reversal = await call<DryRunData>('POST', `${reversalPath(x.t1.entry)}?dry_run=true`, {
      token: x.token,
      body: { reason: 'second' },
    });
    expect(reversal.status, JSON.stringify(reversal.body)).to.equal(200);
    expect(reversal.body.data).to.include({ dry_run: true, outcome: 'staged' });
    expect((reversal.body.data.plan as { reason: string }).reason).to.equal('second');
    expect(reversal.body.warnings.map((w) => [w.code, w.details])).to.deep.equal([
      ['pending_operation', { staged_operation_ids: [holder] }],
    ]);
    expectContract200('ledger_reversal.stage', reversal.body.data);

    // A reconciliation of t1 meets the reversal's lock on t1 (its holders read while loading).
    const reconcile = await call<DryRunData>('POST', `${RECONCILE}?dry_run=true`, {
      token: x.token,
      body: reconcileBody(x),
    });
    expect(reconcile.status, JSON.stringify(reconcile.body)).to.equal(200);
    expect(reconcile.body.data.outcome).to.equal('staged');
    expect(reconcile.body.warnings.map((w) => [w.code, w.details])).to.deep.equal([
      ['pending_operation', { staged_operation_ids: [holder] }],
    ]);
    const realReconcile = await call('POST', RECONCILE, { token: x.token, body: reconcileBody(x) });
    expect(realReconcile.status).to.equal(409);

    // The very same plan pending: a real staging would answer it (already_staged); the dry run names it as the holder.
    const same = await call<DryRunData>('POST', `${reversalPath(x.t1.entry)}?dry_run=true`, {
      token: x.token,
      body: { reason: 'first' },
    });
    expect(same.status).to.equal(200);
    expect(same.body.data.plan_hash).to.equal(held.body.data.plan_hash);
    expect(same.body.warnings.map((w) => w.code)).to.deep.equal(['pending_operation']);
    // No further record: the real 409 above stored its own answer and nothing else; the dry runs none.
    const after = await stored(x.b.orgId);
    expect({ ...after, job_results: 0 }).to.deep.equal({ ...before, job_results: 0 });
    expect(after.job_results).to.equal(before.job_results + 1);
  });

  it('a refused dry run answers the very error the real call answers', async () => {
    const x = await books();
    const bad = { reversal_date: '2000-01-01' };
    const dry = await call('POST', `${reversalPath(x.t1.entry)}?dry_run=true`, { token: x.token, body: bad });
    const real = await call('POST', reversalPath(x.t1.entry), { token: x.token, body: bad });
    expect(dry.status).to.equal(422);
    expect(dry.status).to.equal(real.status);
    expect(dry.body.error).to.deep.equal(real.body.error);
    const missing = await call('POST', `${RECONCILE}?dry_run=true`, {
      token: x.token,
      body: { ...reconcileBody(x), bank_account_id: 'ba_nope' },
    });
    expect(missing.status).to.equal(404);
    expect(missing.body.error.code).to.equal('not_found');
  });

  it('a repair with nothing to change answers outcome noop as a dry run too, with its plan', async () => {
    const b = new Books();
    const account = b.account();
    b.linkedTxn(account, 3_000, { booking_date: '2026-02-10' });
    const s = await stack();
    await s.load(b.file);
    const token = await s.token(b.orgId, SCOPES);
    const body = { bank_account_id: account, counterparty_id: b.cp('a'), as_of: '2026-03-31' };
    const dry = await call<DryRunData>('POST', `${REPAIR}?dry_run=true`, { token, body });
    const real = await call<StageData<unknown>>('POST', REPAIR, { token, body });
    expect(dry.status).to.equal(200);
    expect(dry.body.data).to.include({ dry_run: true, outcome: 'noop' });
    expect(dry.body.data.blockers).to.deep.equal([]);
    expectContract200('ledger_link_repair.stage', dry.body.data);
    expect(real.body.data.outcome).to.equal('noop');
    expect(dry.body.data.plan_hash).to.equal(real.body.data.plan_hash);
  });

  it('dry_run takes only true or false: maybe → 400 validation_failed at /query/dry_run; an unknown parameter stays refused; false stages for real', async () => {
    const x = await books();
    const maybe = await call('POST', `${RECONCILE}?dry_run=maybe`, { token: x.token, body: reconcileBody(x) });
    expect(maybe.status).to.equal(400);
    expect(maybe.body.error.code).to.equal('validation_failed');
    expect(maybe.body.error.errors.map((e) => e.pointer)).to.deep.equal(['/query/dry_run']);
    const unknown = await call('POST', `${REPAIR}?dryrun=true`, { token: x.token, body: repairBody(x) });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.errors.map((e) => e.pointer)).to.deep.equal(['/query/dryrun']);
    const twice = await call('POST', `${RECONCILE}?dry_run=true&dry_run=true`, {
      token: x.token,
      body: reconcileBody(x),
    });
    expect(twice.status).to.equal(400);
    expect(await stored(x.b.orgId)).to.deep.equal(NOTHING);
    const real = await call<StageData<unknown>>('POST', `${RECONCILE}?dry_run=false`, {
      token: x.token,
      body: reconcileBody(x),
    });
    expect(real.status).to.equal(201);
    expect(real.body.data.staged_operation_id).to.match(/^stg_/);
  });

  describe('past its wait', () => {
    afterEach(async () => {
      await (await stack()).startWorker();
    });

    it('answers 202 with a job id, and the job answers the dry run once a worker ran it, still storing nothing', async function () {
      this.timeout(60_000);
      const s = await stack();
      const x = await books();
      await s.stopWorker();
      const pending: Answer<PendingData> = await call<PendingData>('POST', `${RECONCILE}?dry_run=true`, {
        token: x.token,
        body: reconcileBody(x),
        headers: { prefer: 'wait=0' },
      });
      expect(pending.status).to.equal(202);
      await s.startWorker();
      const done = await poll<DryRunData>(pending.headers.get('location')!, x.token, (a) => a.status !== 202);
      expect(done.status).to.equal(200);
      expect(done.body).to.deep.include({
        ok: true,
        operation: 'bank_reconcile.stage',
        request_id: pending.body.request_id,
      });
      expect(done.body.data).to.include({ dry_run: true, outcome: 'staged' });
      expect(await stored(x.b.orgId)).to.deep.equal(NOTHING);
    });
  });
});
