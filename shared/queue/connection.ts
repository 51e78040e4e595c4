import { Redis } from 'ioredis';

/**
 * A Redis connection for BullMQ's blocking parts (workers, queue events):
 * `maxRetriesPerRequest: null` is what BullMQ requires there, and it makes a
 * Redis restart a pause, not a failure.
 */
export function createRedis(url: string): Redis {
  return quiet(new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true }));
}

/**
 * A Redis connection for the API's producer (adding and reading jobs): while
 * Redis is unreachable a command fails at once instead of queueing until it
 * returns, so a request answers 503 fast and did nothing. ioredis keeps
 * reconnecting in the background; the next request after Redis is back works.
 */
export function createProducerRedis(url: string): Redis {
  return quiet(new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableReadyCheck: true, connectTimeout: 1000 }));
}

/**
 * A lost connection is reported by the commands that fail on it (and by
 * /readyz); the client reconnects by itself. Without a listener, ioredis
 * prints every reconnect failure as an unhandled error event.
 */
function quiet(redis: Redis): Redis {
  redis.on('error', () => undefined);
  return redis;
}
