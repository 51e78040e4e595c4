// The Express app factory: HTTP only. No listen here, so tests can start it on
// any port; server.ts owns connections and the process lifecycle.
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../shared/logger.js';
import { locals } from './context.js';
import { errorToEnvelope, routeNotFound } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { requestId } from './middleware/request-id.js';
import { inboxDuplicatesRoutes } from './routes/inbox-duplicates.js';
import { jobRoutes } from './routes/jobs.js';
import { openApiRoutes } from './routes/openapi.js';
import { reviewPage } from './routes/review.js';
import { stagedOperationRoutes } from './routes/staged-operations.js';
import { stagingRoutes } from './routes/staging.js';
import { whoamiRoutes } from './routes/whoami.js';
import type { ReadDeps } from './read-handler.js';
import type { StageDeps } from './stage-handler.js';

export interface AppDeps extends StageDeps {
  logger: Logger;
  /** Reads computed in the worker (the duplicate overview); absent only in apps built without queues. */
  reads?: ReadDeps;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId);
  app.use(pinoHttp({
    logger: deps.logger,
    genReqId: (_req, res) => locals(res as never).requestId,
    customProps: (_req, res) => ({ request_id: locals(res as never).requestId }),
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }));
  app.get('/healthz', (_req, res) => { res.json({ ok: true }); });
  app.use('/api', jsonBody);
  app.use(openApiRoutes());
  app.use(stagingRoutes(deps.db, deps));
  app.use(stagedOperationRoutes(deps.db, deps, deps.reads?.cursorSecret));
  app.use(jobRoutes(deps.db, deps.queue));
  app.use(inboxDuplicatesRoutes(deps.db, deps.reads));
  app.use(whoamiRoutes(deps.db));
  app.use(reviewPage());
  app.use(routeNotFound);
  app.use(errorToEnvelope);
  return app;
}
