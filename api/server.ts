// API process entry: config, connections, listen, graceful shutdown.
import { loadConfigOrExit } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { startApi } from './runtime.js';

const config = loadConfigOrExit();
/** Below docker-compose's stop_grace_period, so the process exits on its own terms. */
const SHUTDOWN_GRACE_MS = 25_000;
const logger = createLogger('api', config.logLevel);

try {
  const api = await startApi(config, logger);
  logger.info({ port: api.port }, 'api listening');
  const shutdown = (signal: string): void => {
    // A backing service that is gone can stall a clean close; never hang past the grace period.
    setTimeout(() => {
      logger.error({ grace_ms: SHUTDOWN_GRACE_MS }, 'api shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    logger.info({ signal }, 'api shutting down');
    api.close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'api shutdown failed');
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'api failed to start');
  process.exit(1);
}
