// What an operation is for the approval policy (shared/kinds/registry.ts
// approvalSubject; docs/design/staged-lifecycle.md "Approval policies"): the
// governance mark comes from the kind module, a revert names the reverted kind
// from its context and is governance when what it reverts is.
import { expect } from 'chai';
import { approvalSubject } from '../../shared/kinds/registry.js';

const revertOf = (kind: string, amount_minor: number) => ({
  kind: 'revert' as const,
  plan: { reverts: 'stg_1', reverts_kind: kind, changes: [] },
  context: { reverted: { staged_operation_id: 'stg_1', kind, amount_minor, currency: 'EUR' } },
  created_by: 'alice',
});

describe('approvalSubject', () => {
  it('a period close is a governance change of amount 0, reverting nothing', () => {
    expect(
      approvalSubject(
        {
          kind: 'period_close',
          plan: { through: '2026-01-31', lock_date_before: null, note: null, entries: 0, bank_transactions: 0 },
          context: {},
          created_by: 'alice',
        },
        'EUR',
      ),
    ).to.deep.equal({
      kind: 'period_close',
      reverts_kind: null,
      amount_minor: 0,
      created_by: 'alice',
      governance: true,
    });
  });

  it('a revert names the reverted kind and carries its amount; it is governance only when that kind is', () => {
    expect(approvalSubject(revertOf('bank_reconcile', 3_000), 'EUR')).to.deep.equal({
      kind: 'revert',
      reverts_kind: 'bank_reconcile',
      amount_minor: 3_000,
      created_by: 'alice',
      governance: false,
    });
    expect(approvalSubject(revertOf('approval_policy', 0), 'EUR')).to.deep.equal({
      kind: 'revert',
      reverts_kind: 'approval_policy',
      amount_minor: 0,
      created_by: 'alice',
      governance: true,
    });
  });

  it('a reverted kind the registry does not know is no kind', () => {
    expect(approvalSubject(revertOf('not_a_kind', 5), 'EUR')).to.deep.include({
      reverts_kind: null,
      governance: false,
    });
  });
});
