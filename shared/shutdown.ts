import type { Logger } from './logger.js';

/**
 * Graceful shutdown for a process entry: on SIGTERM or SIGINT, run `close`
 * (finish what is in flight, release connections) and exit; if a backing
 * service that is gone stalls the close, exit anyway after `graceMs`.
 */
export function closeOnSignals(logger: Logger, name: string, graceMs: number, close: () => Promise<void>): void {
  const shutdown = (signal: string): void => {
    setTimeout(() => {
      logger.error({ grace_ms: graceMs }, `${name} shutdown timed out; exiting`);
      process.exit(1);
    }, graceMs).unref();
    logger.info({ signal }, `${name} shutting down`);
    close().then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, `${name} shutdown failed`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
