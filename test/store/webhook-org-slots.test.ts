// An organisation's webhook delivery slots on the test stack's Redis
// (worker/webhooks/org-slots.ts, docs/reference/webhooks.md "Fair between
// organisations"): at most the limit held at once per organisation, a holder
// taking its own slot again keeps it, a release frees one, a lapsed one is
// taken over, and organisations do not share slots.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { orgSlots } from '../../worker/webhooks/org-slots.js';
import { stack } from '../helpers/stack.js';

describe('webhook organisation slots', () => {
  it('holds at most the limit per organisation; release and lapse free a slot', async () => {
    const s = await stack();
    const redis = new Redis(s.config.redisUrl);
    try {
      const prefix = `slots-${randomBytes(4).toString('hex')}`;
      const slots = orgSlots(redis, prefix, 2, 60_000);
      const one = await slots.take('org_a', 'ep_1');
      const two = await slots.take('org_a', 'ep_2');
      expect([one !== null, two !== null]).to.deep.equal([true, true]);
      expect(await slots.take('org_a', 'ep_3')).to.equal(null);
      // The same holder again keeps its slot; another organisation has slots of its own.
      expect(await slots.take('org_a', 'ep_1')).to.not.equal(null);
      expect(await slots.take('org_b', 'ep_9')).to.not.equal(null);
      await one!.release();
      expect(await slots.take('org_a', 'ep_3')).to.not.equal(null);
      expect(await slots.take('org_a', 'ep_4')).to.equal(null);

      // A slot whose holder died lapses after its lease.
      const short = orgSlots(redis, `${prefix}-short`, 1, 200);
      expect(await short.take('org_a', 'ep_dead')).to.not.equal(null);
      expect(await short.take('org_a', 'ep_next')).to.equal(null);
      await new Promise((r) => setTimeout(r, 400));
      expect(await short.take('org_a', 'ep_next')).to.not.equal(null);
    } finally {
      redis.disconnect();
    }
  });
});
