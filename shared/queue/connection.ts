import { Redis } from 'ioredis';

/**
 * A Redis connection for BullMQ. `maxRetriesPerRequest: null` is what BullMQ
 * requires for blocking connections; it also makes a Redis restart a pause,
 * not a failure.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}
