// HTTP metrics of the API (docs/operating/metrics.md): latency by route template and
// status, and idempotent replays. The route label is always a template
// (`/api/v1/cli/staged-operations/:id`), never the raw URL: ids in labels
// would make a new series per request.
import type { Request, RequestHandler, Response } from 'express';
import { Counter, Histogram, type Registry } from 'prom-client';
import { locals } from '../context.js';

/** Seconds: most answers take milliseconds; a staging call may wait up to STAGE_WAIT_MAX_MS. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Templates set by handlers that are not Express routes (/metrics, the admin UI). */
const templates = new WeakMap<Response, string>();

/** Name the template a request is counted under, for handlers mounted with app.use. */
export function setRouteTemplate(res: Response, template: string): void {
  templates.set(res, template);
}

/** The matched route's template; `unmatched` for a 404 route_not_found, so scanners cannot mint series. */
function routeTemplate(req: Request, res: Response): string {
  const set = templates.get(res);
  if (set) return set;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}

export function httpMetrics(registry: Registry): RequestHandler {
  const latency = new Histogram({
    name: 'bookstage_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const replays = new Counter({
    name: 'bookstage_idempotent_replays_total',
    help: 'Staging and review calls answered as a replay of an earlier request with the same Idempotency-Key (Idempotent-Replayed: true), by operation.',
    labelNames: ['operation'],
    registers: [registry],
  });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      latency.observe({ method: req.method, route: routeTemplate(req, res), status: String(res.statusCode) }, seconds);
      if (res.getHeader('idempotent-replayed') === 'true')
        replays.inc({ operation: locals(res).operation ?? 'unknown' });
    });
    next();
  };
}
