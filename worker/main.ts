// Worker process entry: BullMQ Worker(s), graceful shutdown. Run as many
// replicas as the load needs; they share the queue.
import { loadConfigOrExit } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { startWorker } from './runtime.js';

const config = loadConfigOrExit();
/** Below docker-compose's stop_grace_period, so the process exits on its own terms. */
const SHUTDOWN_GRACE_MS = 50_000;
const logger = createLogger('worker', config.logLevel);

try {
  const worker = await startWorker(config, logger);
  const shutdown = (signal: string): void => {
    // A backing service that is gone can stall a clean close; never hang past the grace period.
    setTimeout(() => {
      logger.error({ grace_ms: SHUTDOWN_GRACE_MS }, 'worker shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    logger.info({ signal }, 'worker shutting down, finishing jobs in flight');
    worker.close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'worker shutdown failed');
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'worker failed to start');
  process.exit(1);
}
