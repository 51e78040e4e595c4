// The messages of the lifecycle errors (shared/errors.ts) say what happened:
// an apply whose undo did not finish does not say that nothing was written,
// and every action reads as a word.
import { expect } from 'chai';
import { AppError } from '../../shared/errors.js';

const message = (code: 'invalid_transition' | 'apply_failed', details: Record<string, unknown>): string =>
  new AppError(code, { details }).message;

describe('lifecycle error messages', () => {
  it('invalid_transition names each action as a past participle: approved, rejected, applied, expired', () => {
    const said = ['approve', 'reject', 'apply', 'expire'].map((action) =>
      message('invalid_transition', { staged_operation_id: 'stg_1', status: 'applying', action }),
    );
    expect(said).to.deep.equal([
      'Staged operation stg_1 is applying; it cannot be approved.',
      'Staged operation stg_1 is applying; it cannot be rejected.',
      'Staged operation stg_1 is applying; it cannot be applied.',
      'Staged operation stg_1 is applying; it cannot be expired.',
    ]);
  });

  it('apply_failed says "nothing was written" only when nothing stayed written', () => {
    expect(message('apply_failed', { staged_operation_id: 'stg_1', reason: 'bank_transaction_missing' })).to.include(
      'nothing was written',
    );
    expect(
      message('apply_failed', { staged_operation_id: 'stg_1', reason: 'conflict_during_apply', not_undone: [] }),
    ).to.include('every write made was undone');
    const partial = message('apply_failed', {
      staged_operation_id: 'stg_1',
      reason: 'conflict_during_apply_not_fully_undone',
      not_undone: ['bank_transactions/t1', 'bank_accounts/a1'],
    });
    expect(partial).to.not.include('nothing was written');
    expect(partial).to.include('bank_transactions/t1, bank_accounts/a1');
  });
});
