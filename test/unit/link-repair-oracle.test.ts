// The repair plan was restructured for speed (100k transactions);
// its output must not change. The frozen copy in test/oracles is the rule as
// it was; both must give deep-equal outcomes and the same plan_hash.
import { expect } from 'chai';
import { planLinkRepair, type LinkRepairInput } from '../../shared/kinds/ledger-link-repair/plan.js';
import { planLinkRepair as planBefore } from '../oracles/link-repair-plan-v1.js';
import { bigRepairInput } from '../../bench/lib/repair-books.js';

/** The same books with duplicates (an older version first), shuffled, and a reconciled, a late and a foreign transaction. */
function varied(n: number): LinkRepairInput {
  const base = bigRepairInput('org_oracle', n);
  const reversed = <T>(xs: readonly T[]): T[] => [...xs].reverse();
  const transactions = base.transactions.map((t, i) =>
    i % 11 === 0
      ? { ...t, status: 'reconciled' as const }
      : i % 13 === 0
        ? { ...t, booking_date: '2026-02-01' }
        : i % 17 === 0
          ? { ...t, amount_minor: -t.amount_minor }
          : t,
  );
  return {
    ...base,
    transactions: reversed([
      ...transactions,
      { ...transactions[1]!, version: 0, amount_minor: 1 },
      { ...transactions[2]!, bank_account_id: 'ba_other' },
    ]),
    entries: [{ ...base.entries[3]!, version: 0, status: 'reversed' as const }, ...reversed(base.entries)],
    links: reversed(base.links),
  };
}

describe('link repair: same output as before the speed-up', () => {
  for (const [name, input] of [
    ['generated books of 500', bigRepairInput('org_oracle', 500)],
    ['generated books of 2,000', bigRepairInput('org_oracle', 2000)],
    ['shuffled books with duplicates, reconciled, late and outgoing transactions', varied(1500)],
  ] as const) {
    it(name, () => {
      const now = planLinkRepair(input);
      const before = planBefore(input);
      expect(now.outcome).to.equal(before.outcome);
      expect(now.plan_hash).to.equal(before.plan_hash);
      expect(JSON.stringify(now)).to.equal(JSON.stringify(before));
    });
  }
});
