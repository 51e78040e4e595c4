import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths never written to logs: bearer tokens and token secrets. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  'secret',
  '*.token',
  '*.secret',
];

/** JSON logs (pino). `service` tells API and worker lines apart. */
export function createLogger(
  service: 'api' | 'worker' | 'admin',
  level: string,
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service, pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
