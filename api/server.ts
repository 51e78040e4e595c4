// API process entry: config, connections, listen, graceful shutdown.
import { loadConfigOrExit } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { closeOnSignals } from '../shared/shutdown.js';
import { shutdownGraceMs } from './shutdown-grace.js';
import { startApi } from './runtime.js';

const config = loadConfigOrExit('api');
/**
 * At least the longest wait a request may be granted (STAGE_WAIT_MAX_MS) plus
 * a margin, so a client waiting on SIGTERM still gets its answer; below
 * docker-compose's stop_grace_period (75 s), so the process exits on its own terms.
 */
const SHUTDOWN_GRACE_MS = shutdownGraceMs(config.stageWaitMaxMs);
const logger = createLogger('api', config.logLevel);

try {
  const api = await startApi(config, logger);
  logger.info({ port: api.port }, 'api listening');
  // api.close() stops accepting, lets in-flight requests answer, then releases connections.
  closeOnSignals(logger, 'api', SHUTDOWN_GRACE_MS, api.close);
} catch (err) {
  logger.fatal({ err }, 'api failed to start');
  process.exit(1);
}
