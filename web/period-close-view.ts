// The plan of a period close (docs/guide/review-page.md "Views"): the day
// through which every day closes, the lock date it replaces, and how many
// records the period held when it was staged.
import { facts, h } from './dom.js';
import type { StagedOperationDetail as StagedOperation } from '../shared/contract/staged-operation.js';

/** shared/kinds/period-close/plan.ts PeriodClosePlan, as the page reads it. */
interface PeriodClosePlan {
  through: string;
  lock_date_before: string | null;
  note: string | null;
  entries: number;
  bank_transactions: number;
}

export function periodCloseView(op: StagedOperation): HTMLElement {
  const plan = op.plan as PeriodClosePlan;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, `Period close: every day through ${plan.through}`),
    facts([
      ['Closes through', plan.through],
      ['Lock date now', plan.lock_date_before ?? 'none'],
      ['Ledger entries in the period', String(plan.entries)],
      ['Bank transactions in the period', String(plan.bank_transactions)],
      ['Note', plan.note ?? '—'],
    ]),
    h(
      'p',
      {},
      'On apply nothing can be booked on or before this day any more, and the period is stored with the hash of its records.',
    ),
  );
}
