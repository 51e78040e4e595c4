// Environment configuration, validated once at start. A bad value stops the
// process with a message naming the variable, never a stack trace later.
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';

export interface Config {
  mongoUrl: string;
  redisUrl: string;
  port: number;
  logLevel: string;
  queuePrefix: string;
  /** How long a staging call waits for its job before answering 202. */
  stageWaitMs: number;
  /** The most a client may ask for with `Prefer: wait=N`. */
  stageWaitMaxMs: number;
  workerConcurrency: number;
  /** HMAC key of opaque list cursors; every API replica must have the same one (see cursorSecretFor). */
  cursorSecret: string;
  /** The PostgreSQL database behind FerretDB, for its GIN indexes (docs/indexes.md); absent elsewhere. */
  ferretdbPostgresUrl?: string;
}

const schema = {
  type: 'object',
  properties: {
    MONGO_URL: { type: 'string', pattern: '^mongodb(\\+srv)?://.+' },
    REDIS_URL: { type: 'string', pattern: '^rediss?://.+' },
    PORT: { type: 'string', pattern: '^[0-9]{1,5}$' },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    // One optional `{hash tag}` for Redis Cluster (docs/scaling.md).
    QUEUE_PREFIX: { type: 'string', pattern: '^(?=.{1,64}$)[A-Za-z0-9_-]*(\\{[A-Za-z0-9_-]+\\})?[A-Za-z0-9_-]*$' },
    STAGE_WAIT_MS: { type: 'string', pattern: '^[0-9]{1,7}$' },
    STAGE_WAIT_MAX_MS: { type: 'string', pattern: '^[0-9]{1,7}$' },
    WORKER_CONCURRENCY: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
    CURSOR_SECRET: { type: 'string', pattern: '^[\\x21-\\x7E]{32,512}$' },
    FERRETDB_POSTGRES_URL: { type: 'string', pattern: '^postgres(ql)?://.+' },
  },
  required: ['MONGO_URL', 'REDIS_URL'],
} as const;

const HINTS: Record<string, string> = {
  MONGO_URL: 'a mongodb:// URL with the database name in its path, e.g. mongodb://127.0.0.1:27017/bookstage',
  REDIS_URL: 'a redis:// URL, e.g. redis://127.0.0.1:6379',
  PORT: 'a TCP port number, 0 for any free one (default 8080)',
  LOG_LEVEL: 'one of fatal, error, warn, info, debug, trace, silent',
  QUEUE_PREFIX: 'letters, digits, _ and -, at most one {hash tag} of them (e.g. {bookstage}), 1 to 64 characters (default bookstage)',
  STAGE_WAIT_MS: 'milliseconds, an integer (default 10000)',
  STAGE_WAIT_MAX_MS: 'milliseconds, an integer (default 60000)',
  WORKER_CONCURRENCY: 'an integer from 1 to 999 (default 4)',
  CURSOR_SECRET: '32 to 512 printable ASCII characters without spaces (default: derived from MONGO_URL)',
  FERRETDB_POSTGRES_URL: 'a postgres:// URL of the PostgreSQL database FerretDB stores in, e.g. postgres://postgres@127.0.0.1:5432/ferretdb',
};

/** Variables whose values never appear in messages. */
const SECRETS = new Set(['CURSOR_SECRET', 'FERRETDB_POSTGRES_URL']);

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const ajv = new Ajv({ allErrors: true });
  const validate = ajv.compile(schema);
  const subset = Object.fromEntries(Object.keys(schema.properties).filter((k) => env[k] !== undefined && env[k] !== '').map((k) => [k, env[k]]));
  if (!validate(subset)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.slice(1);
      const shown = SECRETS.has(name) ? `${String(subset[name]).length} characters, not shown` : JSON.stringify(subset[name]);
      const state = e.keyword === 'required' ? 'is not set' : `is invalid (${shown})`;
      return `${name} ${state}: expected ${HINTS[name] ?? e.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const int = (name: string, fallback: number): number => (subset[name] === undefined ? fallback : Number(subset[name]));
  const port = int('PORT', 8080);
  if (port > 65535) throw new ConfigError(`Invalid configuration:\n  PORT is invalid (${port}): expected ${HINTS.PORT}`);
  return {
    mongoUrl: String(subset.MONGO_URL),
    redisUrl: String(subset.REDIS_URL),
    port,
    logLevel: String(subset.LOG_LEVEL ?? 'info'),
    queuePrefix: String(subset.QUEUE_PREFIX ?? 'bookstage'),
    stageWaitMs: int('STAGE_WAIT_MS', 10_000),
    stageWaitMaxMs: int('STAGE_WAIT_MAX_MS', 60_000),
    workerConcurrency: int('WORKER_CONCURRENCY', 4),
    cursorSecret: subset.CURSOR_SECRET === undefined ? cursorSecretFor(String(subset.MONGO_URL)) : String(subset.CURSOR_SECRET),
    ...(subset.FERRETDB_POSTGRES_URL === undefined ? {} : { ferretdbPostgresUrl: String(subset.FERRETDB_POSTGRES_URL) }),
  };
}

/**
 * The default cursor secret: derived from MONGO_URL, so every replica that
 * shares the database agrees without more configuration, and a cursor stays
 * valid across restarts. Anyone who knows the URL can forge a cursor, which
 * only moves a position inside the caller's own organisation (the org comes
 * from the token); set CURSOR_SECRET in production anyway.
 */
export function cursorSecretFor(mongoUrl: string): string {
  return createHash('sha256').update(`bookstage cursor secret v1\n${mongoUrl}`, 'utf8').digest('base64url');
}

/** For process entry points: print the problem and exit 78 (EX_CONFIG). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
