// While Redis is gone, a worker process keeps logging JSON lines only
// (docs/operating/reliability.md): every BullMQ object of the worker has an
// `error` listener, so no reconnect failure reaches stderr as plain text,
// which a log shipper reading JSON would drop or choke on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stopProcess } from '../../scripts/services/processes.js';
import { startRedis } from '../../scripts/services/redis.js';
import { opsEnv, startWorkerProcess, stopAll, type Child } from './processes.js';

describe('a worker while Redis is down', function () {
  this.timeout(60_000);

  it('logs its connection errors as JSON lines, and nothing as plain text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookstage-redis-'));
    const redis = await startRedis(dir);
    const children: Child[] = [];
    try {
      const worker = await startWorkerProcess(await opsEnv({ REDIS_URL: `redis://127.0.0.1:${redis.port}` }));
      children.push(worker);
      await stopProcess(redis.pid, 'redis-server');
      // Each of its connections fails to reconnect a few times a second; a few seconds show every kind.
      await worker.waitFor((l) => /ECONNREFUSED/.test(JSON.stringify(l.err ?? '')), 15_000);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const plain = worker.logs.filter((line) => {
        try {
          return typeof JSON.parse(line) !== 'object';
        } catch {
          return true;
        }
      });
      expect(plain, plain.slice(0, 3).join('\n')).to.deep.equal([]);
      expect(worker.logs.length).to.be.greaterThan(0);
    } finally {
      await stopAll(children);
      await stopProcess(redis.pid, 'redis-server');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
