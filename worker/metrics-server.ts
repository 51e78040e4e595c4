// The worker's own small HTTP server on WORKER_METRICS_PORT (docs/operating/metrics.md):
// GET /metrics for Prometheus, GET /healthz for a container health check.
// Nothing else: the worker has no API. Neither asks for a token, so it
// listens on WORKER_METRICS_HOST, loopback unless the operator says otherwise.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../shared/logger.js';
import { METRICS_CONTENT_TYPE } from '../shared/metrics/registry.js';

export interface MetricsServer {
  port: number | null;
  /** The address it is bound to. */ host: string | null;
  close: () => Promise<void>;
}

export async function startMetricsServer(
  registry: Registry,
  port: number,
  logger: Logger,
  host = '127.0.0.1',
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    } else if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE }).end(text),
        (err: unknown) => {
          logger.error({ err }, 'metrics collection failed');
          res.writeHead(500).end();
        },
      );
    } else {
      res.writeHead(404).end();
    }
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err) => {
      // Jobs matter more than their metrics: a taken port is an operator's error to fix, not a reason to stop working.
      logger.error(
        { err, port, host },
        'worker metrics server could not listen; running without /metrics and /healthz',
      );
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return { port: null, host: null, close: () => Promise.resolve() };
  const { port: actual, address } = server.address() as AddressInfo;
  logger.info({ metrics_port: actual, metrics_host: host }, 'worker metrics listening');
  return {
    port: actual,
    host: address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
