// At most N endpoints of one organisation are delivered to at once, across
// every worker (docs/reference/webhooks.md "Fair between organisations"): a
// drain takes a slot of its organisation before it sends and gives it back
// when it ends. A slot is a member of a sorted set in Redis scored by when
// it lapses, renewed after each attempt, so a worker that dies holding one
// frees it after SLOT_LEASE_MS beyond its last attempt. One Lua script
// takes a slot atomically; the key hashes with the queue prefix (a Redis
// Cluster `{tag}` in it puts the key in the queues' slot).
import type { Cluster, Redis } from 'ioredis';

/** Drops the lapsed holders, then takes (or keeps) the slot of ARGV[3] if fewer than ARGV[4] hold one. */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
`;

export interface OrgSlot {
  /** Keep the slot another lease (after each attempt). */
  renew(): Promise<void>;
  release(): Promise<void>;
}

export interface OrgSlots {
  /** The organisation's slot for this holder, or null while `limit` others hold one. */
  take(orgId: string, holder: string): Promise<OrgSlot | null>;
}

/** `leaseMs`: how long a slot outlives its last renewal (longer than one attempt, whose time-out bounds it). */
export function orgSlots(connection: Redis | Cluster, prefix: string, limit: number, leaseMs: number): OrgSlots {
  const keyOf = (orgId: string) => `${prefix}:webhook-org-slots:${orgId}`;
  const hold = async (key: string, holder: string): Promise<number> => {
    const now = Date.now();
    return (await connection.eval(TAKE, 1, key, now, now + leaseMs, holder, limit, leaseMs * 2)) as number;
  };
  return {
    async take(orgId, holder) {
      const key = keyOf(orgId);
      if ((await hold(key, holder)) !== 1) return null;
      return {
        renew: async () => {
          await hold(key, holder);
        },
        release: async () => {
          await connection.zrem(key, holder);
        },
      };
    },
  };
}
