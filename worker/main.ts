// Worker process entry: BullMQ Workers, graceful shutdown. Run as many
// replicas as the load needs; they share the queues.
import { loadConfigOrExit } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { closeOnSignals } from '../shared/shutdown.js';
import { startWorker } from './runtime.js';

/** Below docker-compose's stop_grace_period (60 s), so the process exits on its own terms. */
const SHUTDOWN_GRACE_MS = 50_000;

const config = loadConfigOrExit('worker');
const logger = createLogger('worker', config.logLevel);

try {
  const worker = await startWorker(config, logger);
  // worker.close() lets the jobs in flight finish first.
  closeOnSignals(logger, 'worker', SHUTDOWN_GRACE_MS, worker.close);
} catch (err) {
  logger.fatal({ err }, 'worker failed to start');
  process.exit(1);
}
