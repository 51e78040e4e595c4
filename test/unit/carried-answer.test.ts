// A job's return value carries its answer only when the API can answer it
// byte for byte as the stored one (shared/storage/job-results.ts carriedAnswer).
import { expect } from 'chai';
import type { StageAnswer } from '../../shared/contract/staging-answer.js';
import { carriedAnswer, leanAnswer } from '../../shared/storage/job-results.js';

const staged = (plan: unknown): StageAnswer => ({
  operation: 'ledger_reversal.stage',
  outcome: 'staged',
  created: true,
  staged_operation_id: 'stg_1',
  data: {
    outcome: 'staged',
    staged_operation_id: 'stg_1',
    status: 'staged',
    plan,
    plan_hash: 'h1',
    context: { entries: [{ id: 'le_1' }] },
    expires_at: '2026-11-25T00:00:00.000Z',
  },
  warnings: [],
});

describe("carried answer (the job return value's copy of the stored answer)", () => {
  it('is the answer as a reader of the store gets it: the context, the plan and its hash joined back last', () => {
    expect(JSON.stringify(carriedAnswer(staged({ actions: [1] }), 8192))).to.equal(
      JSON.stringify({
        operation: 'ledger_reversal.stage',
        outcome: 'staged',
        created: true,
        staged_operation_id: 'stg_1',
        data: {
          outcome: 'staged',
          staged_operation_id: 'stg_1',
          status: 'staged',
          expires_at: '2026-11-25T00:00:00.000Z',
          context: { entries: [{ id: 'le_1' }] },
          plan: { actions: [1] },
          plan_hash: 'h1',
        },
        warnings: [],
      }),
    );
  });

  it('is a refusal as it is', () => {
    const refused: StageAnswer = {
      operation: 'ledger_reversal.stage',
      outcome: 'refused',
      code: 'not_found',
      details: { resource: 'Ledger entry', id: 'le_1' },
    };
    expect(carriedAnswer(refused, 8192)).to.deep.equal(refused);
  });

  it('is not carried past the length limit', () => {
    const answer = staged({ note: 'x'.repeat(9000) });
    expect(carriedAnswer(answer, 8192)).to.equal(null);
    expect(carriedAnswer(answer, 100_000)).to.not.equal(null);
  });

  it('is not carried when JSON would change it (undefined, a Date): the store is read instead', () => {
    expect(carriedAnswer(staged({ reason: undefined }), 8192)).to.equal(null);
    expect(carriedAnswer(staged({ at: new Date(0) }), 8192)).to.equal(null);
  });

  it("is a review or apply step's operation with its plan, preconditions and context joined back last", () => {
    const done: StageAnswer = {
      operation: 'staged_operations.apply',
      outcome: 'done',
      data: {
        staged_operation_id: 'stg_1',
        kind: 'ledger_reversal',
        status: 'applied',
        plan: { actions: [1] },
        plan_hash: 'h1',
        preconditions: [{ collection: 'ledger_entries', id: 'le_1', version: 2 }],
        result: { status: 'applied' },
        context: { entries: [] },
        amount_minor: 4200,
      },
      warnings: [],
    };
    expect(JSON.stringify(carriedAnswer(done, 8192))).to.equal(
      JSON.stringify({
        operation: 'staged_operations.apply',
        outcome: 'done',
        data: {
          staged_operation_id: 'stg_1',
          kind: 'ledger_reversal',
          status: 'applied',
          plan_hash: 'h1',
          result: { status: 'applied' },
          amount_minor: 4200,
          plan: { actions: [1] },
          preconditions: [{ collection: 'ledger_entries', id: 'le_1', version: 2 }],
          context: { entries: [] },
        },
        warnings: [],
      }),
    );
    expect(leanAnswer(done)).to.deep.equal({
      ...done,
      data: {
        staged_operation_id: 'stg_1',
        kind: 'ledger_reversal',
        status: 'applied',
        plan_hash: 'h1',
        result: { status: 'applied' },
        amount_minor: 4200,
      },
    });
  });

  it('leaves a staged answer whole to a lean reader: its plan is what it answers', () => {
    const answer = staged({ actions: [1] });
    expect(leanAnswer(answer)).to.deep.equal(answer);
  });
});
