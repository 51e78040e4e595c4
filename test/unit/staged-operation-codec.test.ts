import { expect } from 'chai';
import type { StagedOperationDoc, StoredStagedOperation } from '../../shared/storage/collections.js';
import {
  BODY_INLINE_LIMIT,
  BODY_PART_CHARS,
  bodyPartIds,
  decodeOperation,
  encodeOperation,
  encodeSet,
  encodeResult,
  encodeStaging,
  MissingOperationBodyError,
  MissingResultClaimError,
  RESULT_INLINE_LIMIT,
} from '../../shared/storage/staged-operation-codec.js';

const op: StagedOperationDoc = {
  _id: 'stg_1',
  org_id: 'org_1',
  kind: 'statement_import',
  status: 'applied',
  created_by: 'alice',
  created_at: '2026-03-01T00:00:00.000Z',
  expires_at: '2026-03-08T00:00:00.000Z',
  request_id: 'req_1',
  idempotency_key: null,
  scope_key: 'statement_import:ba_1',
  input: { bank_account_id: 'ba_1' },
  plan: {
    bank_account_id: 'ba_1',
    new_transactions: [{ id: 'bt_1', amount_minor: -1_250, remittance_info: 'Größe "5"', value_date: null }],
    skipped: [],
  },
  plan_hash: 'abc',
  preconditions: [{ collection: 'bank_accounts', id: 'ba_1', version: 3 }],
  warnings: [],
  history: [],
  apply: {
    writes: [],
    writes_from_plan: true,
    done: 1,
    phase: 'forward',
    undone: 0,
    conflict: null,
    owner: 'job_1',
    lease_until: '',
    started_at: '',
    started_by: 'bob',
    request_id: 'req_2',
  },
  result: {
    status: 'applied',
    at: '2026-03-02T00:00:00.000Z',
    by: 'bob',
    changes: [{ action: 'insert', collection: 'bank_transactions', id: 'bt_1' }],
  },
  context: {},
};

describe('staged operation storage codec', () => {
  it('stores the plan, preconditions, context, journal and result as JSON text beside the fields the store filters on', () => {
    const stored = encodeOperation(op);
    expect(stored).to.not.have.any.keys('plan', 'preconditions', 'context', 'apply', 'result');
    expect(stored).to.include({
      _id: 'stg_1',
      org_id: 'org_1',
      status: 'applied',
      kind: 'statement_import',
      scope_key: 'statement_import:ba_1',
      plan_hash: 'abc',
    });
    expect(stored.plan_json).to.equal(
      '{"bank_account_id":"ba_1","new_transactions":[{"id":"bt_1","amount_minor":-1250,"remittance_info":"Größe \\"5\\"","value_date":null}],"skipped":[]}',
    );
    expect(stored.preconditions_json).to.equal('[{"collection":"bank_accounts","id":"ba_1","version":3}]');
    expect(stored.context_json).to.equal('{}');
  });

  it('reads back exactly what it stored, key order included', () => {
    const back = decodeOperation(encodeOperation(op));
    expect(back).to.deep.equal(op);
    expect(JSON.stringify(back.plan)).to.equal(JSON.stringify(op.plan));
  });

  it('leaves out what the operation does not have yet (no journal, no result before apply)', () => {
    const { apply: _a, result: _r, ...staged } = op;
    const stored = encodeOperation({ ...staged, status: 'staged' });
    expect(stored).to.not.have.any.keys('apply_json', 'result_json');
    expect(decodeOperation(stored)).to.not.have.any.keys('apply', 'result');
  });

  it('a transition sets the journal or the result as text', () => {
    expect(encodeSet({ result: op.result! })).to.deep.equal({ result_json: JSON.stringify(op.result) });
    expect(encodeSet({})).to.deep.equal({});
  });

  it('a new operation keeps its plan, preconditions and context in a body document of their own, which the operation names', () => {
    const {
      op: stored,
      bodies: [body],
    } = encodeStaging(op, 'stg_1:b1', 0);
    expect(stored).to.not.have.any.keys(
      'plan',
      'preconditions',
      'context',
      'plan_json',
      'preconditions_json',
      'context_json',
    );
    expect(stored).to.include({
      _id: 'stg_1',
      body_id: 'stg_1:b1',
      apply_json: JSON.stringify(op.apply),
      result_json: JSON.stringify(op.result),
    });
    expect(body).to.deep.equal({
      _id: 'stg_1:b1',
      org_id: 'org_1',
      staged_operation_id: 'stg_1',
      plan_json:
        '{"bank_account_id":"ba_1","new_transactions":[{"id":"bt_1","amount_minor":-1250,"remittance_info":"Größe \\"5\\"","value_date":null}],"skipped":[]}',
      preconditions_json: '[{"collection":"bank_accounts","id":"ba_1","version":3}]',
      context_json: '{}',
    });
    const back = decodeOperation(stored, [body]);
    expect(back).to.deep.equal(op);
    expect(Object.keys(back)).to.deep.equal(Object.keys(decodeOperation(encodeOperation(op))));
  });

  it('a small operation keeps them inline, as one document: a body only past BODY_INLINE_LIMIT characters of JSON', () => {
    expect(encodeStaging(op, 'stg_1:b1')).to.deep.equal({ op: encodeOperation(op), bodies: [] });
    const size =
      JSON.stringify(op.plan).length + JSON.stringify(op.preconditions).length + JSON.stringify(op.context).length;
    expect(encodeStaging(op, 'stg_1:b1', size).bodies).to.deep.equal([]);
    expect(encodeStaging(op, 'stg_1:b1', size - 1).bodies)
      .to.have.length(1)
      .and.to.have.nested.property('[0]._id', 'stg_1:b1');
    const big = { ...op, plan: { ...(op.plan as Record<string, unknown>), memo: 'x'.repeat(BODY_INLINE_LIMIT) } };
    expect(encodeStaging(big, 'stg_1:b1').op).to.include({ body_id: 'stg_1:b1' });
  });

  it('refuses to read an operation without its own body rather than answer it without a plan', () => {
    const {
      op: stored,
      bodies: [body],
    } = encodeStaging(op, 'stg_1:b1', 0);
    expect(() => decodeOperation(stored, [])).to.throw(MissingOperationBodyError);
    expect(() => decodeOperation(stored, [null])).to.throw(MissingOperationBodyError);
    expect(() => decodeOperation(stored, [{ ...body!, _id: 'stg_1:other' }])).to.throw(MissingOperationBodyError);
    expect(() => decodeOperation(stored, [{ ...body!, org_id: 'org_2' }])).to.throw(MissingOperationBodyError);
  });

  it('keeps a result of at most RESULT_INLINE_LIMIT characters on the operation, and names the claim holding a longer one', () => {
    expect(encodeResult('x'.repeat(RESULT_INLINE_LIMIT), 'aud_1')).to.deep.equal({
      result_json: 'x'.repeat(RESULT_INLINE_LIMIT),
    });
    expect(encodeResult('x'.repeat(RESULT_INLINE_LIMIT + 1), 'aud_1')).to.deep.equal({ result_claim: 'aud_1' });
    expect(encodeResult(undefined, 'aud_1')).to.deep.equal({});
  });

  it('reads a result named by its claim back from the claim, as text or as an older claim’s document', () => {
    const { result_json, ...stored } = encodeOperation(op);
    const named: StoredStagedOperation = { ...stored, result_claim: 'aud_1' };
    const claim = { _id: 'aud_1', org_id: 'org_1', staged_operation_id: 'stg_1' };
    expect(decodeOperation(named, [], { ...claim, result_json: result_json! })).to.deep.equal(op);
    expect(decodeOperation(named, [], { ...claim, result: op.result })).to.deep.equal(op);
    expect(decodeOperation(named, [], { ...claim, result_json: result_json! })).not.to.have.property('result_claim');
  });

  it('refuses to read an operation whose result claim is missing or not its own rather than answer it without its result', () => {
    const { result_json, ...stored } = encodeOperation(op);
    const named: StoredStagedOperation = { ...stored, result_claim: 'aud_1' };
    const claim = { _id: 'aud_1', org_id: 'org_1', staged_operation_id: 'stg_1', result_json: result_json! };
    expect(() => decodeOperation(named, [], null)).to.throw(MissingResultClaimError);
    expect(() => decodeOperation(named, [], { ...claim, _id: 'aud_2' })).to.throw(MissingResultClaimError);
    expect(() => decodeOperation(named, [], { ...claim, org_id: 'org_2' })).to.throw(MissingResultClaimError);
    expect(() => decodeOperation(named, [], { ...claim, staged_operation_id: 'stg_2' })).to.throw(
      MissingResultClaimError,
    );
    expect(() => decodeOperation(named, [], { _id: 'aud_1', org_id: 'org_1', staged_operation_id: 'stg_1' })).to.throw(
      MissingResultClaimError,
    );
  });

  it('cuts a body past BODY_PART_CHARS characters into parts, one document each, which the operation counts', () => {
    const { op: stored, bodies } = encodeStaging(op, 'stg_1:b1', 0, 64);
    const text = JSON.stringify(op.plan) + JSON.stringify(op.preconditions) + JSON.stringify(op.context);
    expect(stored).to.include({ body_id: 'stg_1:b1', body_parts: Math.ceil(text.length / 64) });
    expect(bodies.map((b) => [b._id, b.part, b.org_id, b.staged_operation_id])).to.deep.equal(
      bodyPartIds('stg_1:b1', stored.body_parts).map((id, part) => [id, part, 'org_1', 'stg_1']),
    );
    expect(bodyPartIds('stg_1:b1', 3)).to.deep.equal(['stg_1:b1', 'stg_1:b1/1', 'stg_1:b1/2']);
    expect(
      bodies.map((b) => (b.plan_json ?? '') + (b.preconditions_json ?? '') + (b.context_json ?? '')).join(''),
    ).to.equal(text);
    expect(decodeOperation(stored, bodies)).to.deep.equal(op);
    // The real limit: a body of at most BODY_PART_CHARS characters stays one document, without part numbers.
    expect(encodeStaging(op, 'stg_1:b1', 0).op).to.not.have.property('body_parts');
    expect(BODY_PART_CHARS * 3).to.be.below(16 * 1024 * 1024);
  });

  it("refuses to read an operation with a part of its body missing, out of order or another organisation's", () => {
    const { op: stored, bodies } = encodeStaging(op, 'stg_1:b1', 0, 64);
    expect(bodies.length).to.be.greaterThan(2);
    expect(() => decodeOperation(stored, bodies.slice(0, -1))).to.throw(MissingOperationBodyError);
    expect(() => decodeOperation(stored, [bodies[0], null, ...bodies.slice(2)])).to.throw(MissingOperationBodyError);
    expect(() => decodeOperation(stored, [bodies[1], bodies[0], ...bodies.slice(2)])).to.throw(
      MissingOperationBodyError,
    );
    expect(() =>
      decodeOperation(
        stored,
        bodies.map((b, i) => (i === 1 ? { ...b, org_id: 'org_2' } : b)),
      ),
    ).to.throw(MissingOperationBodyError);
  });

  it('still reads an operation stored before the codec, its fields as documents', () => {
    const legacy = { ...op } as StoredStagedOperation;
    expect(decodeOperation(legacy)).to.deep.equal(op);
  });
});
