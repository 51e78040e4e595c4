// A job's return value carries its answer only when the API can answer it
// byte for byte as the stored one (shared/storage/job-results.ts carriedAnswer).
import { expect } from 'chai';
import type { StageAnswer } from '../../shared/contract/staging-answer.js';
import { carriedAnswer } from '../../shared/storage/job-results.js';

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
});
