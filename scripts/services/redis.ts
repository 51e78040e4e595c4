import { join } from 'node:path';
import { aptInstall, log, spawnDetached, which } from './processes.js';
import { freePort, waitForPort } from './ports.js';

export interface RedisProcess {
  pid: number;
  port: number;
}

export function ensureRedisInstalled(): string {
  let bin = which('redis-server');
  if (!bin) {
    aptInstall(['redis-server'], 'set MONGO_URL and REDIS_URL');
    bin = which('redis-server');
  }
  if (!bin) throw new Error('redis-server is still not on PATH after apt-get install redis-server');
  return bin;
}

/**
 * `port`: a given port (a restart of the same server in tests); default a free one.
 * `durable`: append-only file in `dataDir`, fsync every second, as the
 * compose file runs it (`npm start`'s kept data); otherwise no persistence
 * at all (the test suite's throw-away servers).
 */
export async function startRedis(dataDir: string, port?: number, durable = false): Promise<RedisProcess> {
  const bin = ensureRedisInstalled();
  port ??= await freePort();
  const persistence = durable
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
    : ['--save', '', '--appendonly', 'no'];
  const pid = spawnDetached(
    bin,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dataDir,
      ...persistence,
      '--daemonize',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    join(dataDir, 'redis.log'),
  );
  await waitForPort(port, 15_000, 'redis-server');
  log(`redis-server pid ${pid} on 127.0.0.1:${port}`);
  return { pid, port };
}
