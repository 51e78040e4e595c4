// The period close's rule and journal (docs/design/staged-lifecycle.md "Closing a period"), exact.
import { expect } from 'chai';
import { decidePeriodClose, type PeriodCloseBooks } from '../../shared/kinds/period-close/plan.js';
import { periodCloseJournal } from '../../shared/kinds/period-close/journal.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import * as records from '../helpers/records.js';

const books = (over: Partial<PeriodCloseBooks> = {}): PeriodCloseBooks => ({
  org: records.org({ lock_date: '2025-12-31', version: 4 }),
  entry_dates: ['2026-01-15', '2026-01-31', '2026-02-01', '2025-11-30'],
  transaction_dates: ['2026-02-10', '2026-01-20'],
  refused_by_lock: [],
  pending: [],
  ...over,
});
const request = { through: '2026-01-31', note: 'January', today: '2026-11-29' };

describe('decidePeriodClose', () => {
  it('plans the new lock date with the records dated on or before it, claims the one close scope, and reads the org version', () => {
    const plan = {
      through: '2026-01-31',
      lock_date_before: '2025-12-31',
      note: 'January',
      entries: 3,
      bank_transactions: 1,
    };
    expect(decidePeriodClose(books(), request)).to.deep.equal({
      outcome: 'staged',
      plan,
      plan_hash: planHash(plan),
      locks: { subject_key: 'period-close', entry_ids: [], transaction_ids: [] },
      preconditions: [{ collection: 'orgs', id: 'org_1', version: 4 }],
      warnings: [],
    });
  });

  it('refuses a through on or before the lock date, then one not before today', () => {
    for (const through of ['2025-12-31', '2025-06-30'])
      expect(decidePeriodClose(books(), { ...request, through })).to.deep.equal({
        outcome: 'refused',
        code: 'invalid_period',
        details: { reason: 'not_after_lock_date', through, lock_date: '2025-12-31' },
      });
    for (const through of ['2026-11-29', '2026-12-01'])
      expect(decidePeriodClose(books(), { ...request, through })).to.deep.equal({
        outcome: 'refused',
        code: 'invalid_period',
        details: { reason: 'not_before_today', through, today: '2026-11-29' },
      });
    // Without a lock date only today bounds it.
    expect(
      decidePeriodClose(books({ org: records.org({ lock_date: null }) }), { ...request, through: '2026-11-28' })
        .outcome,
    ).to.equal('staged');
  });

  it('names the pending operations the new lock would refuse, once each, by id, before the pending gate', () => {
    const decision = decidePeriodClose(
      books({
        refused_by_lock: ['stg_b', 'stg_a', 'stg_b'],
        pending: [{ staged_operation_id: 'stg_c', subject_key: 'period-close', plan_hash: 'x' }],
      }),
      request,
    );
    expect(decision).to.deep.equal({
      outcome: 'refused',
      code: 'pending_operation',
      details: { through: '2026-01-31', operation_ids: ['stg_a', 'stg_b'], staged_operation_ids: ['stg_a', 'stg_b'] },
    });
  });

  it('with another close pending: the very same plan is that operation, another one is pending_operation', () => {
    const staged = decidePeriodClose(books(), request);
    if (staged.outcome !== 'staged') throw new Error('expected staged');
    const holder = { staged_operation_id: 'stg_c', subject_key: 'period-close', plan_hash: staged.plan_hash };
    expect(decidePeriodClose(books({ pending: [holder] }), request)).to.deep.equal({
      outcome: 'existing',
      staged_operation_id: 'stg_c',
    });
    expect(decidePeriodClose(books({ pending: [holder] }), { ...request, note: null })).to.deep.equal({
      outcome: 'refused',
      code: 'pending_operation',
      details: { staged_operation_ids: ['stg_c'] },
    });
  });
});

describe('periodCloseJournal', () => {
  it('inserts the period, then sets the lock date on the org at the version apply read, keeping the one it replaces', () => {
    const plan = {
      through: '2026-01-31',
      lock_date_before: '2025-12-31',
      note: null,
      entries: 3,
      bank_transactions: 1,
    };
    const writes = periodCloseJournal(
      plan,
      { org: { id: 'org_1', version: 4, lock_date: '2025-12-31' }, hash: 'ab'.repeat(32), approved_by: 'bob' },
      { staged_operation_id: 'stg_1', now: '2026-11-29T10:00:00.000Z' },
    );
    expect(writes).to.deep.equal([
      {
        action: 'insert',
        collection: 'closed_periods',
        id: 'org_1:2026-01-31',
        doc: {
          through: '2026-01-31',
          closed_at: '2026-11-29T10:00:00.000Z',
          approved_by: 'bob',
          hash: 'ab'.repeat(32),
          staged_operation_id: 'stg_1',
          lock_date_before: '2025-12-31',
          version: 1,
        },
      },
      {
        action: 'update',
        collection: 'orgs',
        id: 'org_1',
        version: 4,
        set: { lock_date: '2026-01-31' },
        before: { lock_date: '2025-12-31' },
      },
    ]);
  });
});
