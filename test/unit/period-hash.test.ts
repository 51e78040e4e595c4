// A closed period's fingerprint: SHA-256 over the canonical JSON of its records.
import { expect } from 'chai';
import { periodHash } from '../../shared/domain/period-hash.js';
import * as records from '../helpers/records.js';

const entry = (id: string, entry_date: string, lines: [string, number, number][]) =>
  records.entry({
    id,
    entry_date,
    currency: 'EUR',
    lines: lines.map(([account, debit_minor, credit_minor]) => ({ account, debit_minor, credit_minor })),
  });

const entries = [
  entry('le_2', '2026-03-31', [
    ['1200', 1000, 0],
    ['4000', 0, 1000],
  ]),
  entry('le_3', '2026-04-01', [
    ['1200', 5, 0],
    ['4000', 0, 5],
  ]),
  entry('le_1', '2026-01-31', [
    ['1600', 0, 350],
    ['6855', 350, 0],
  ]),
];
const transactions = [
  records.txn({ id: 'bt_b', bank_account_id: 'ba_1', booking_date: '2026-04-02', amount_minor: 7, currency: 'EUR' }),
  records.txn({ id: 'bt_a', bank_account_id: 'ba_1', booking_date: '2026-02-01', amount_minor: -350, currency: 'EUR' }),
];

describe('period hash', () => {
  it('is the SHA-256 of the canonical JSON of the records dated on or before the period end, in id order', () => {
    // Computed outside this project: Python's json.dumps(sort_keys=True, separators=(",", ":")) and hashlib.
    expect(periodHash('2026-03-31', entries, transactions)).to.equal(
      '636e7c1d5f379f151066f7c6a35861f0e31cbb894e7e27ac836de37828e805f8',
    );
  });

  it('changes when a record of the period changes, and not for a record after it', () => {
    const before = periodHash('2026-03-31', entries, transactions);
    const changed = transactions.map((t) => (t.id === 'bt_a' ? { ...t, amount_minor: -351 } : t));
    const later = transactions.map((t) => (t.id === 'bt_b' ? { ...t, amount_minor: 8 } : t));
    expect(periodHash('2026-03-31', entries, changed)).to.not.equal(before);
    expect(periodHash('2026-03-31', entries, later)).to.equal(before);
  });
});
