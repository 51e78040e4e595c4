// docs/design/staged-lifecycle.md "Unattended limits" on the real store (FerretDB
// 1.24 in the test stack, which has no atomic counter): twenty reservations of
// one actor's day at once, ROUNDS times, never pass the day's limit; the
// chain's totals are exactly the sums of what it reserved, and each refused
// reservation would pass the limit on the final total.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { collections } from '../../shared/storage/collections.js';
import { reservationKey, reserveUnattended } from '../../shared/storage/unattended-reservations.js';
import { mulberry32 } from '../helpers/seeded-random.js';
import { stack } from '../helpers/stack.js';

const ROUNDS = 200;
const PARALLEL = 20;
const LIMIT = 50_000;
/** Rounds run this many at a time, each on a chain of its own. */
const LANES = 5;

describe('unattended day totals: reservations raced on the real store', function () {
  this.timeout(900_000);

  it(`${PARALLEL} parallel reservations of one actor's day, ${ROUNDS} rounds: never past the limit, totals exact`, async () => {
    const { db } = await stack();
    const orgId = `org_res_${randomBytes(4).toString('hex')}`;
    const random = mulberry32(49);
    const round = async (i: number): Promise<void> => {
      const key = reservationKey(orgId, `agent:bot-${i}`, '2026-11-29');
      // 5,000–24,999 each: a few fit, most do not.
      const amounts = Array.from({ length: PARALLEL }, () => 5_000 + Math.floor(random() * 20_000));
      const results = await Promise.all(
        amounts.map((amount, k) =>
          reserveUnattended(db, orgId, key, `stg_${i}_${k}`, amount, (total) => total + amount <= LIMIT, 'now'),
        ),
      );
      const steps = await collections(db)
        .unattendedReservations.find({ org_id: orgId, key })
        .sort({ seq: 1 })
        .toArray();
      const reserved = amounts.filter((_, k) => results[k]);
      expect(steps.map((s) => s.seq)).to.deep.equal(steps.map((_, n) => n + 1));
      expect(steps.map((s) => s.amount_minor).sort()).to.deep.equal([...reserved].sort());
      let sum = 0;
      for (const step of steps) {
        sum += step.amount_minor;
        expect(step.total_minor).to.equal(sum);
      }
      expect(sum).to.be.at.most(LIMIT);
      for (const [k, amount] of amounts.entries()) if (!results[k]) expect(sum + amount).to.be.above(LIMIT);
    };
    for (let i = 0; i < ROUNDS; i += LANES)
      await Promise.all(Array.from({ length: Math.min(LANES, ROUNDS - i) }, (_, k) => round(i + k)));
  });
});
