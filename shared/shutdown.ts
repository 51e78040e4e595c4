import type { Logger } from './logger.js';

/**
 * Graceful shutdown for a process entry (docs/operating/deploy.md, "Shutdown"): on the
 * first SIGTERM or SIGINT, run `close` (stop taking work, finish what is in
 * flight, release Redis and MongoDB) and exit 0. The operator's way out of a
 * close that hangs: a second signal exits at once, and so does the end of
 * `graceMs` (a backing service that is gone can stall a close); both exit 1.
 */
export function closeOnSignals(logger: Logger, name: string, graceMs: number, close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      logger.warn({ signal }, `${name} shutdown forced by a second signal; exiting`);
      process.exit(1);
    }
    closing = true;
    setTimeout(() => {
      logger.error({ grace_ms: graceMs }, `${name} shutdown timed out; exiting`);
      process.exit(1);
    }, graceMs).unref();
    logger.info({ signal, grace_ms: graceMs }, `${name} shutting down`);
    close().then(
      () => {
        logger.info(`${name} stopped`);
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, `${name} shutdown failed`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
