// docs/design/staged-lifecycle.md "Approval policies" on the real stack: the
// policy in force (version 0 when never set), and changing it as a staged kind
// (`approval_policy`): schema-checked, dry run, idempotency, one pending change
// at a time, applied as version + 1.
import { Ajv } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { expect } from 'chai';
import { API_ROUTES } from '../../shared/contract/routes.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { apply, approve } from '../helpers/staged.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;
const contractAjv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** The `data` of a `status` answer of `operation` matches the contract's schema (shared/contract/routes.ts). */
function expectContract(operation: string, status: 200 | 201, data: unknown): void {
  const validate = contractAjv.compile(API_ROUTES.find((r) => r.operation === operation)!.success[status]!.data);
  expect(validate(data), `${operation}: ${JSON.stringify(validate.errors)}`).to.equal(true);
}

const POLICY = '/api/v1/cli/approval-policy';
const STAGE = '/api/v1/cli/approval-policy/stage';

interface PolicyData {
  version: number;
  rules: Array<Record<string, unknown>>;
  agents_may_approve: boolean;
  unattended: Array<Record<string, unknown>>;
  updated_at: string | null;
  updated_by_operation: string | null;
}

interface StagedPolicy {
  outcome: string;
  staged_operation_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  plan: Record<string, unknown>;
  plan_hash: string;
}

const TIGHT = {
  rules: [
    { kinds: ['ledger_reversal'], min_amount_minor: 500_000, approvals: 2, approvers: 'people' },
    { kinds: ['*'], approvals: 1, approvers: 'any' },
  ],
  agents_may_approve: false,
  unattended: [
    { actor: 'agent:recon-bot', kinds: ['bank_reconcile'], max_amount_minor: 50_000, max_per_day_minor: 200_000 },
  ],
};

async function org(): Promise<{ books: Books; admin: string; bob: string; reader: string }> {
  const s = await stack();
  const books = new Books();
  await s.load(books.file);
  return {
    books,
    admin: await s.token(books.orgId, ['policy:stage', 'staged:read', 'staged:apply'], 'alice'),
    bob: await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob'),
    reader: await s.token(books.orgId, ['staged:read'], 'carol'),
  };
}

describe('approval policy: the policy in force and its change as a staged kind', () => {
  it('an organisation that never set one answers version 0: one approval by anyone, agents may approve', async () => {
    const { reader } = await org();
    const res = await call<PolicyData>('GET', POLICY, { token: reader });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.equal({
      version: 0,
      rules: [{ kinds: ['*'], min_amount_minor: 0, approvals: 1, approvers: 'any' }],
      agents_may_approve: true,
      unattended: [],
      updated_at: null,
      updated_by_operation: null,
    });
    expectContract('approval_policy.show', 200, res.body.data);
  });

  it('staging needs policy:stage (403) and reading needs staged:read (403)', async () => {
    const s = await stack();
    const { books, bob } = await org();
    const staged = await call('POST', STAGE, { token: bob, body: TIGHT });
    expect(staged.status).to.equal(403);
    const noRead = await s.token(books.orgId, ['books:read'], 'eve');
    expect((await call('GET', POLICY, { token: noRead })).status).to.equal(403);
  });

  it('refuses a bad rule with the JSON pointer: an unknown kind, approvals outside 1-5, an unknown member, a negative limit', async () => {
    const { admin, reader } = await org();
    const rule = { kinds: ['*'], approvals: 1, approvers: 'any' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...TIGHT, rules: [{ ...rule, kinds: ['bank_teleport'] }] }, '/rules/0/kinds/0'],
      [{ ...TIGHT, rules: [rule, { ...rule, approvals: 6 }] }, '/rules/1/approvals'],
      [{ ...TIGHT, rules: [{ ...rule, approvals: 0 }] }, '/rules/0/approvals'],
      [{ ...TIGHT, rules: [{ ...rule, approvers: 'robots' }] }, '/rules/0/approvers'],
      [{ ...TIGHT, rules: [{ ...rule, colour: 'red' }] }, '/rules/0/colour'],
      [{ ...TIGHT, rules: [] }, '/rules'],
      [
        { ...TIGHT, unattended: [{ ...TIGHT.unattended[0], max_per_day_minor: -1 }] },
        '/unattended/0/max_per_day_minor',
      ],
      [{ rules: TIGHT.rules, unattended: [] }, '/agents_may_approve'],
      [{ ...TIGHT, unattended: [{ ...TIGHT.unattended[0], kinds: ['bank_teleport'] }] }, '/unattended/0/kinds/0'],
    ];
    for (const [body, pointer] of cases) {
      const res = await call('POST', STAGE, { token: admin, body });
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(
        res.body.error.errors.map((e) => e.pointer),
        JSON.stringify(body),
      ).to.include(pointer);
    }
    expect((await call<PolicyData>('GET', POLICY, { token: reader })).body.data.version).to.equal(0);
  });

  it('a dry run answers the plan and stores nothing', async () => {
    const { books, admin, reader } = await org();
    const res = await call<StagedPolicy & { dry_run: boolean }>('POST', `${STAGE}?dry_run=true`, {
      token: admin,
      body: TIGHT,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({ dry_run: true, outcome: 'staged', amount_minor: 0, currency: 'EUR' });
    expect(res.body.data.plan).to.include({ base_version: 0, version: 1 });
    expectContract('approval_policy.stage', 200, res.body.data);
    const s = await stack();
    expect(await s.db.collection('staged_operations').countDocuments({ org_id: books.orgId })).to.equal(0);
    expect((await call<PolicyData>('GET', POLICY, { token: reader })).body.data.version).to.equal(0);
  });

  it('stages (amount 0), replays under the same key, is approved and applied as version 1; the same policy again is a noop', async () => {
    const { books, admin, bob, reader } = await org();
    const headers = { 'idempotency-key': `policy-${books.uid}` };
    const staged = await call<StagedPolicy>('POST', STAGE, { token: admin, body: TIGHT, headers });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    expect(staged.body.data).to.include({ outcome: 'staged', status: 'staged', amount_minor: 0, currency: 'EUR' });
    expect(staged.body.data.plan).to.deep.equal({
      base_version: 0,
      version: 1,
      rules: [TIGHT.rules[0], { ...TIGHT.rules[1], min_amount_minor: 0 }],
      agents_may_approve: false,
      unattended: TIGHT.unattended,
    });
    expectContract('approval_policy.stage', 201, staged.body.data);
    const id = staged.body.data.staged_operation_id;
    const replay = await call<StagedPolicy>('POST', STAGE, { token: admin, body: TIGHT, headers });
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.data.staged_operation_id).to.equal(id);

    // Still version 0 until applied.
    expect((await call<PolicyData>('GET', POLICY, { token: reader })).body.data.version).to.equal(0);
    expect((await approve(bob, id)).status).to.equal(200);
    const applied = await apply(bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');

    const now = await call<PolicyData>('GET', POLICY, { token: reader });
    expect(now.body.data).to.deep.include({
      version: 1,
      rules: [TIGHT.rules[0], { ...TIGHT.rules[1], min_amount_minor: 0 }],
      agents_may_approve: false,
      unattended: TIGHT.unattended,
      updated_by_operation: id,
    });
    expect(now.body.data.updated_at).to.be.a('string');
    expectContract('approval_policy.show', 200, now.body.data);

    const again = await call<StagedPolicy>('POST', STAGE, { token: admin, body: TIGHT });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.data.outcome).to.equal('noop');
    expect(again.body.data.plan).to.include({ base_version: 1, version: 2 });
    expectContract('approval_policy.stage', 200, again.body.data);
  });

  it('one change pending at a time: a different policy meanwhile is 409 pending_operation naming it', async () => {
    const { admin } = await org();
    const first = await call<StagedPolicy>('POST', STAGE, { token: admin, body: TIGHT });
    expect(first.status).to.equal(201);
    const second = await call('POST', STAGE, { token: admin, body: { ...TIGHT, agents_may_approve: true } });
    expect(second.status, JSON.stringify(second.body)).to.equal(409);
    expect(second.body.error.code).to.equal('pending_operation');
    expect(second.body.error.details).to.deep.equal({ staged_operation_ids: [first.body.data.staged_operation_id] });
  });
});
