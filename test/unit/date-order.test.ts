// Ordering positions by date rank (shared/domain/date-order.ts), which the
// link repair plan uses for its FIFO queues when records come in id order.
import { expect } from 'chai';
import { DateSlots, orderByDateRank } from '../../shared/domain/date-order.js';

function order(dates: string[]): number[] {
  const slots = new DateSlots('2025-03-31');
  const at = Int32Array.from(dates, (date) => slots.slot(date));
  const positions = Int32Array.from(dates, (_, i) => i);
  orderByDateRank(positions, at, slots.ranks());
  return [...positions];
}

describe('date order', () => {
  it('gives each distinct date one slot, in the order first met, and ranks the slots in code-unit order', () => {
    const slots = new DateSlots('2025-03-31');
    const met = ['2025-03-01', '2025-01-15', '2025-03-01', '2024-12-31', '2025-01-15'].map((d) => slots.slot(d));
    expect(met).to.deep.equal([0, 1, 0, 2, 1]);
    expect(slots.dates).to.deep.equal(['2025-03-01', '2025-01-15', '2024-12-31']);
    expect([...slots.ranks()]).to.deep.equal([2, 1, 0]);
    // The cut-off is 2025-03-31: none of the three is after it; a later date is, the cut-off itself is not.
    expect([0, 1, 2].map((slot) => slots.isAfterCutoff(slot))).to.deep.equal([false, false, false]);
    expect(slots.isAfterCutoff(slots.slot('2025-04-01'))).to.equal(true);
    expect(slots.isAfterCutoff(slots.slot('2025-03-31'))).to.equal(false);
  });

  it('orders positions by date, and keeps the given (id) order among equal dates', () => {
    expect(order(['2025-02-01', '2025-01-01', '2025-02-01', '2025-01-01', '2024-06-30'])).to.deep.equal([
      4, 1, 3, 0, 2,
    ]);
  });

  it('leaves positions already in date order as they are', () => {
    expect(order(['2025-01-01', '2025-01-01', '2025-01-02', '2025-03-01'])).to.deep.equal([0, 1, 2, 3]);
  });

  it('orders the positions it is given, not their indexes: a subset keeps its own positions', () => {
    const slots = new DateSlots('2025-03-31');
    const at = Int32Array.from(['2025-05-01', '2025-04-01', '2025-04-01'], (date) => slots.slot(date));
    const positions = Int32Array.from([7, 3, 9]);
    orderByDateRank(positions, at, slots.ranks());
    expect([...positions]).to.deep.equal([3, 9, 7]);
  });
});
