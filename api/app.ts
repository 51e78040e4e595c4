// The Express app factory: HTTP only. No listen here, so tests can start it on
// any port; server.ts owns connections and the process lifecycle.
import type { Queue } from 'bullmq';
import express, { type Express } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { pinoHttp } from 'pino-http';
import type { Registry } from 'prom-client';
import type { Logger } from '../shared/logger.js';
import { locals } from './context.js';
import { errorToEnvelope, routeNotFound } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { rateLimit, type RateLimitSettings } from './middleware/rate-limit.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { adminQueues, ADMIN_QUEUES_PATH } from './routes/admin-queues.js';
import { healthRoutes, metricsEndpoint, type ReadinessCheck } from './routes/health.js';
import { requestId } from './middleware/request-id.js';
import { booksExportRoutes } from './routes/books-export.js';
import { booksReadRoutes } from './routes/books-read.js';
import { periodRoutes } from './routes/periods.js';
import { csvMappingRoutes } from './routes/csv-mapping.js';
import { matchSuggestionRoutes } from './routes/match-suggestions.js';
import { approvalPolicyRoutes } from './routes/approval-policy.js';
import { inboxDuplicatesRoutes } from './routes/inbox-duplicates.js';
import { jobRoutes } from './routes/jobs.js';
import { openApiRoutes } from './routes/openapi.js';
import { reviewPage } from './routes/review.js';
import { stagedOperationRoutes } from './routes/staged-operations.js';
import { stagingRoutes } from './routes/staging.js';
import { whoamiRoutes } from './routes/whoami.js';
import { eventRoutes } from './routes/events.js';
import { webhookEndpointRoutes, type WebhookRouteSettings } from './routes/webhook-endpoints.js';
import type { ReadDeps } from './read-handler.js';
import type { StageDeps } from './stage-handler.js';

export interface AppDeps extends StageDeps {
  logger: Logger;
  /** Reads computed in the worker (the duplicate overview); absent only in apps built without queues. */
  reads?: ReadDeps;
  /** What an operator runs it with (docs/operating/metrics.md); absent only in apps built without connections. */
  ops?: OpsDeps;
  /** Webhook endpoints (docs/reference/webhooks.md); absent only in apps built without configuration (then creating one answers 503). */
  webhooks?: WebhookRouteSettings;
}

/** Readiness, metrics, the rate limit's Redis and the queues the admin board shows. */
export interface OpsDeps {
  registry: Registry;
  readiness: ReadinessCheck[];
  redis: Redis | Cluster;
  rateLimit: RateLimitSettings;
  adminQueues: Queue[];
}

/** Not logged per request. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  if (deps.ops) app.use(httpMetrics(deps.ops.registry));
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (_req, res) => locals(res as never).requestId,
      // Probes and scrapes come every few seconds and say nothing new; /metrics counts them.
      autoLogging: { ignore: (req) => PROBE_PATHS.has((req.url ?? '').split('?')[0]!) },
      customProps: (_req, res) => ({ request_id: locals(res as never).requestId }),
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(healthRoutes(deps.ops?.readiness ?? []));
  if (deps.ops) {
    app.use('/metrics', metricsEndpoint(deps.ops.registry));
    // Per token (and unknown tokens per address), before any work; health, readiness and metrics above are never limited.
    app.use('/api', rateLimit(deps.ops.redis, deps.ops.rateLimit, deps.logger, deps.db));
    // Not limited: its gate answers a plain 404 to all but admins, and RateLimit headers would give it away.
    app.use(ADMIN_QUEUES_PATH, adminQueues(deps.db, deps.ops.adminQueues));
  }
  app.use('/api', jsonBody);
  app.use(openApiRoutes());
  app.use(stagingRoutes(deps.db, deps));
  app.use(stagedOperationRoutes(deps.db, deps, deps.reads?.cursorSecret));
  app.use(jobRoutes(deps.db, deps.queue));
  app.use(inboxDuplicatesRoutes(deps.db, deps.reads));
  app.use(booksReadRoutes(deps.db, deps.reads));
  app.use(booksExportRoutes(deps.db, deps.reads));
  app.use(periodRoutes(deps.db, deps.reads));
  app.use(csvMappingRoutes(deps.db));
  app.use(matchSuggestionRoutes(deps.db, deps.reads));
  app.use(whoamiRoutes(deps.db));
  app.use(approvalPolicyRoutes(deps.db));
  app.use(eventRoutes(deps.db, deps.reads?.cursorSecret));
  app.use(webhookEndpointRoutes(deps.db, deps.webhooks));
  app.use(reviewPage());
  app.use(routeNotFound);
  app.use(errorToEnvelope);
  return app;
}
