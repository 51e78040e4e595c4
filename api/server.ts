// API process entry: config, connections, listen, graceful shutdown.
import { loadConfigOrExit } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { startApi } from './runtime.js';

const config = loadConfigOrExit();
const logger = createLogger('api', config.logLevel);

try {
  const api = await startApi(config, logger);
  logger.info({ port: api.port }, 'api listening');
  const shutdown = (signal: string): void => {
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
