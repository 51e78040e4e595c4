// An API of its own on a Redis of its own, for outage tests: the test stops
// and starts that Redis (same port, same data dir) while the shared stack's
// servers stay up. No worker serves its queue prefix, so a request accepted
// once Redis is back waits for one (202).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi } from '../../api/runtime.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { stopProcess } from '../../scripts/services/processes.js';
import { startRedis, type RedisProcess } from '../../scripts/services/redis.js';

export interface OwnRedisApi {
  /** The API's HTTP port. */
  port: number;
  /** Its Redis's port. */
  redisPort: number;
  stopRedis(): Promise<void>;
  /** `kill -STOP` / `kill -CONT`: Redis keeps its connections open but answers nothing until resumed. */
  pauseRedis(): void;
  resumeRedis(): void;
  startRedis(): Promise<void>;
  /** API, Redis and data dir, all gone. */
  close(): Promise<void>;
}

/** `redisDown`: the API starts with Redis already stopped (nothing behind its port). */
export async function apiWithOwnRedis(
  queuePrefix: string,
  options: { redisDown?: boolean } = {},
): Promise<OwnRedisApi> {
  const dir = mkdtempSync(join(tmpdir(), 'bookstage-redis-'));
  const first = await startRedis(dir);
  const port = first.port;
  let redis: RedisProcess | null = first;
  const stop = async (): Promise<void> => {
    if (redis) await stopProcess(redis.pid, 'redis-server');
    redis = null;
  };
  if (options.redisDown) await stop();
  const config = loadConfig({
    ...process.env,
    REDIS_URL: `redis://127.0.0.1:${port}`,
    PORT: '0',
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_REQUESTS: '10000000',
    RATE_LIMIT_AUTH_FAILURES: '10000000',
  });
  const api = await startApi(config, createLogger('api', 'silent'));
  return {
    port: api.port,
    redisPort: port,
    stopRedis: stop,
    pauseRedis() {
      if (redis) process.kill(redis.pid, 'SIGSTOP');
    },
    resumeRedis() {
      if (redis) process.kill(redis.pid, 'SIGCONT');
    },
    async startRedis() {
      redis ??= await startRedis(dir, port);
    },
    async close() {
      if (redis) process.kill(redis.pid, 'SIGCONT');
      await api.close();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
