// The worker's /metrics and /healthz have no authentication: loopback unless
// the operator sets WORKER_METRICS_HOST (docs/operating/metrics.md).
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { startMetricsServer } from '../../worker/metrics-server.js';

describe('worker metrics server: where it listens', () => {
  const env = { MONGO_URL: 'mongodb://127.0.0.1:1/x', REDIS_URL: 'redis://127.0.0.1:1' };

  it('WORKER_METRICS_HOST defaults to 127.0.0.1 and takes another address', () => {
    expect(loadConfig(env).workerMetricsHost).to.equal('127.0.0.1');
    expect(loadConfig({ ...env, WORKER_METRICS_HOST: '0.0.0.0' }).workerMetricsHost).to.equal('0.0.0.0');
  });

  it('listens on loopback only by default: answered on 127.0.0.1, bound to no other address', async () => {
    const server = await startMetricsServer(new Registry(), 0, createLogger('worker', 'silent'));
    try {
      expect(server.port).to.be.a('number');
      expect(server.host).to.equal('127.0.0.1');
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});
