// A revert's refusals in the order docs/design/staged-lifecycle.md "Reverts"
// gives them (issue 51's "Checked in this order"): each case meets two
// refusals at once and must answer the earlier one, by the pure rule
// (shared/kinds/revert/plan.ts).
import { expect } from 'chai';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import type { StagedStatus } from '../../shared/domain/staged-transitions.js';
import { reconcileRevertRules } from '../../shared/kinds/bank-reconcile/revert.js';
import {
  decideRevert,
  recordKey,
  type KindRevertRules,
  type RevertRequest,
  type RevertSubject,
  type StoredRecord,
} from '../../shared/kinds/revert/plan.js';
import { importRevertRules } from '../../shared/kinds/statement-import/revert.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';

const IMPORTED: StoredRecord = {
  bank_account_id: 'ba_1',
  booking_date: '2026-01-05',
  amount_minor: 10_000,
  status: 'unreconciled',
  reconciliation_id: null,
  version: 1,
};
const IMPORT_WRITES: JournalWrite[] = [
  { action: 'insert', collection: 'bank_transactions', id: 'bt_1', doc: IMPORTED },
];

function decide(
  o: {
    kind?: StagedKind;
    status?: StagedStatus;
    writes?: JournalWrite[];
    records?: Map<string, StoredRecord | null>;
    extra?: unknown;
    rules?: KindRevertRules | null;
    plan?: unknown;
  } & Partial<RevertRequest>,
) {
  const subject: RevertSubject = {
    id: 'stg_1',
    kind: o.kind ?? 'statement_import',
    status: o.status ?? 'applied',
    plan: o.plan ?? { bank_account_id: 'ba_1' },
    preconditions: [],
    applied_at: '2026-01-06T00:00:00.000Z',
    writes: o.writes ?? IMPORT_WRITES,
  };
  const decision = decideRevert(
    subject,
    {
      records: o.records ?? new Map([[recordKey('bank_transactions', 'bt_1'), IMPORTED]]),
      extra: o.extra ?? { linked_transaction_ids: [] },
    },
    {
      scopes: o.scopes ?? ['bank:stage'],
      required_scope: o.required_scope === undefined ? 'bank:stage' : o.required_scope,
      reverts: o.reverts ?? [],
      reverted_by: o.reverted_by ?? null,
      rules: o.rules === undefined ? importRevertRules : o.rules,
      lock_date: o.lock_date ?? null,
      pending: [],
      reversal_date: '2026-03-31',
    },
    'stg_1',
  );
  return decision.outcome === 'refused' ? { code: decision.code, details: decision.details } : decision.outcome;
}

describe('decideRevert: refusals in the documented order', () => {
  it('an import that is fine: staged', () => {
    expect(decide({})).to.equal('staged');
  });

  it('the scope before not_applied', () => {
    expect(decide({ status: 'staged', scopes: ['inbox:stage'] })).to.deep.equal({
      code: 'forbidden',
      details: { required_scope: 'bank:stage' },
    });
  });

  it('not_applied before not_revertible', () => {
    expect(decide({ kind: 'ledger_reversal', status: 'rejected', rules: null })).to.deep.equal({
      code: 'not_applied',
      details: { staged_operation_id: 'stg_1', status: 'rejected' },
    });
  });

  it('not_revertible before already_reverted', () => {
    expect(decide({ kind: 'period_close', rules: null, reverted_by: 'stg_9' })).to.deep.equal({
      code: 'not_revertible',
      details: { staged_operation_id: 'stg_1', kind: 'period_close' },
    });
  });

  it('already_reverted (an approved revert) before the kind’s refusals and the lock date', () => {
    expect(
      decide({
        reverts: [{ id: 'stg_8', status: 'approved' }],
        extra: { linked_transaction_ids: ['bt_1'] },
        lock_date: '2026-01-31',
      }),
    ).to.deep.equal({ code: 'already_reverted', details: { staged_operation_id: 'stg_1', reverted_by: 'stg_8' } });
    // A revert only staged does not count: the staging answers as a repeated one (the lock gate).
    expect(decide({ reverts: [{ id: 'stg_8', status: 'staged' }] })).to.equal('staged');
  });

  it("a reconciliation's not_latest_reconciliation before changed_since_apply", () => {
    const writes: JournalWrite[] = [
      {
        action: 'update',
        collection: 'bank_accounts',
        id: 'ba_1',
        version: 1,
        set: { reconciled_through: { date: '2026-01-31', balance_minor: 10_000 } },
        before: { reconciled_through: null },
      },
      {
        action: 'update',
        collection: 'bank_transactions',
        id: 'bt_1',
        version: 1,
        set: { status: 'reconciled', reconciliation_id: 'stg_1' },
        before: { status: 'unreconciled', reconciliation_id: null },
      },
    ];
    const records = new Map<string, StoredRecord | null>([
      // A later reconciliation moved the account on; the transaction was edited besides.
      ['bank_accounts/ba_1', { reconciled_through: { date: '2026-02-28', balance_minor: 12_000 }, version: 3 }],
      ['bank_transactions/bt_1', { ...IMPORTED, status: 'unreconciled', version: 3 }],
    ]);
    expect(
      decide({
        kind: 'bank_reconcile',
        writes,
        records,
        rules: reconcileRevertRules,
        extra: { later_staged_operation_id: 'stg_2' },
      }),
    ).to.deep.equal({
      code: 'not_latest_reconciliation',
      details: { staged_operation_id: 'stg_1', bank_account_id: 'ba_1', later_staged_operation_id: 'stg_2' },
    });
  });

  it('changed_since_apply before period_locked, which comes last', () => {
    expect(decide({ extra: { linked_transaction_ids: ['bt_1'] }, lock_date: '2026-01-31' })).to.deep.equal({
      code: 'changed_since_apply',
      details: {
        staged_operation_id: 'stg_1',
        ids: ['bt_1'],
        records: [{ collection: 'bank_transactions', id: 'bt_1' }],
      },
    });
    expect(decide({ lock_date: '2026-01-31' })).to.deep.equal({
      code: 'period_locked',
      details: { staged_operation_id: 'stg_1', lock_date: '2026-01-31', transaction_ids: ['bt_1'] },
    });
    // The lock date before the booking date: nothing locked.
    expect(decide({ lock_date: '2026-01-04' })).to.equal('staged');
  });
});
