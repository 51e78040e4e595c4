// Liveness, readiness and metrics (docs/reference/http-api.md §12, docs/operating/metrics.md): no token, never
// rate limited. /healthz says the process is up; /readyz that it can serve
// (Redis and MongoDB each answer within 1 s); /metrics is for Prometheus.
import { Router, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import { within, type Dependency } from '../../shared/dependency-errors.js';
import { AppError } from '../../shared/errors.js';
import { METRICS_CONTENT_TYPE } from '../../shared/metrics/registry.js';
import { setRouteTemplate } from '../metrics/http-metrics.js';
import { operation } from '../middleware/request-id.js';

/** One backing service and a cheap round trip to it (PING, `{ping: 1}`). */
export interface ReadinessCheck {
  dependency: Dependency;
  ping: () => Promise<unknown>;
}

/** Each dependency must answer within this: a load balancer's probe should not hang on a dead one. */
export const READY_WITHIN_MS = 1000;

/** The dependencies that did not answer in time, checked at once so the probe takes ≤ 1 s. */
export async function unready(checks: ReadinessCheck[]): Promise<Dependency[]> {
  const results = await Promise.allSettled(checks.map((c) => within(c.ping(), READY_WITHIN_MS, c.dependency)));
  return checks.filter((_c, i) => results[i]!.status === 'rejected').map((c) => c.dependency);
}

export function healthRoutes(checks: ReadinessCheck[]): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  router.get('/readyz', operation('readiness'), async (_req, res) => {
    const down = await unready(checks);
    // 503 names what is down: `details.dependency` reads as a sentence, `details.down` lists them.
    if (down.length > 0)
      throw new AppError('dependency_unavailable', { details: { dependency: down.join(' and '), down } });
    res.json({ ok: true, checks: Object.fromEntries(checks.map((c) => [c.dependency, 'up'])) });
  });
  return router;
}

/** GET /metrics in Prometheus text format; mounted with app.use, it is not part of the JSON API contract. */
export function metricsEndpoint(registry: Registry): RequestHandler {
  return async (req, res, next) => {
    if (req.path !== '/' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    setRouteTemplate(res, '/metrics');
    const text = await registry.metrics();
    res.setHeader('Content-Type', METRICS_CONTENT_TYPE);
    res.end(text);
  };
}
