// Environment configuration, declared once. Each variable's name, type,
// default, documentation and secrecy are one entry of CONFIG_VARIABLES below,
// and that entry drives everything else: parsing, the start-up error message,
// and the configuration table of docs/reference/configuration.md table (rendered by scripts/docs-tables.ts and
// checked by test/unit/docs-tables.test.ts). A bad value stops the process
// with a message naming the variable, never a stack trace later.
import { createHash } from 'node:crypto';

export type ConfigProcess = 'api' | 'worker' | 'admin';

interface VariableCommon {
  /** The environment variable. */
  env: string;
  /** The processes that read it (the configuration table's "used by" column). */
  usedBy: readonly ConfigProcess[];
  /** What the variable is for (the configuration table's "meaning" column, Markdown). */
  doc: string;
  /** A secret is never printed: an invalid value is shown by its length only. */
  secret?: true;
  /** With NODE_ENV=production (the image sets it) the variable must be set: its default is for development only. */
  requiredInProduction?: true;
}

/**
 * How a missing (or empty) variable is filled in: required, a fixed value, or
 * derived from the variables already read (`doc` is the configuration table's default cell).
 */
export type VariableDefault<T> =
  { required: true } | { value: T } | { derived: { doc: string; from: (read: ReadValues) => T } };

/** The values read so far, by Config field; derived defaults see every non-derived one. */
export type ReadValues = Readonly<Partial<Record<string, string | number>>>;

export interface StringVariable extends VariableCommon {
  type: 'string';
  pattern: RegExp;
  /** What a valid value looks like, for the error message and the configuration table (docs/reference/configuration.md). */
  expected: string;
  default: VariableDefault<string>;
}

export interface IntegerVariable extends VariableCommon {
  type: 'integer';
  min: number;
  max: number;
  default: VariableDefault<number>;
}

export interface EnumVariable extends VariableCommon {
  type: 'enum';
  values: readonly string[];
  default: VariableDefault<string>;
}

export type ConfigVariable = StringVariable | IntegerVariable | EnumVariable;

/** Every variable the API and the worker read, keyed by its Config field, in the configuration table's order. */
export const CONFIG_VARIABLES = {
  mongoUrl: {
    env: 'MONGO_URL',
    usedBy: ['api', 'worker', 'admin'],
    type: 'string',
    pattern: /^mongodb(\+srv)?:\/\/.+/,
    expected: 'a `mongodb://` URL with the database name in its path, e.g. `mongodb://127.0.0.1:27017/bookstage`',
    default: { required: true },
    doc: 'the database; its name comes from the URL path (`bookstage` if there is none)',
  },
  redisUrl: {
    env: 'REDIS_URL',
    usedBy: ['api', 'worker'],
    type: 'string',
    pattern: /^(rediss?|redis\+cluster):\/\/.+/,
    expected:
      'a `redis://` URL, e.g. `redis://127.0.0.1:6379`, or `redis+cluster://host:port,host:port` for a Redis Cluster',
    default: { required: true },
    doc: 'the Redis that carries the job queues; `redis+cluster://` seeds a Redis Cluster (docs/operating/scaling.md), which needs a `{hash tag}` in `QUEUE_PREFIX`',
  },
  port: {
    env: 'PORT',
    usedBy: ['api'],
    type: 'integer',
    min: 0,
    max: 65535,
    default: { value: 8080 },
    doc: 'HTTP port (`0` picks any free port)',
  },
  stageWaitMs: {
    env: 'STAGE_WAIT_MS',
    usedBy: ['api'],
    type: 'integer',
    min: 0,
    max: 9_999_999,
    default: { value: 10_000 },
    doc: 'milliseconds a staging call waits for its job before it answers 202; a read (the duplicate overview) waits as long before it answers 503',
  },
  stageWaitMaxMs: {
    env: 'STAGE_WAIT_MAX_MS',
    usedBy: ['api'],
    type: 'integer',
    min: 0,
    max: 9_999_999,
    default: { value: 60_000 },
    doc: 'the most a client may ask for with `Prefer: wait=N`, in milliseconds',
  },
  workerConcurrency: {
    env: 'WORKER_CONCURRENCY',
    usedBy: ['worker'],
    type: 'integer',
    min: 1,
    max: 999,
    default: { value: 4 },
    doc: 'jobs one worker process runs at once, per queue (staging and reads each)',
  },
  stageJobAttempts: {
    env: 'STAGE_JOB_ATTEMPTS',
    usedBy: ['api'],
    type: 'integer',
    min: 1,
    max: 20,
    default: { value: 6 },
    doc: 'attempts of a staging job that fails unexpectedly (lost connection) before it fails for good',
  },
  stageJobBackoffMs: {
    env: 'STAGE_JOB_BACKOFF_MS',
    usedBy: ['api'],
    type: 'integer',
    min: 0,
    max: 600_000,
    default: { value: 1000 },
    doc: 'first retry delay of a failed staging job, doubling each attempt (6 attempts from 1 s ride out a 30 s outage)',
  },
  workerLockDurationMs: {
    env: 'WORKER_LOCK_DURATION_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 1000,
    max: 600_000,
    default: { value: 30_000 },
    doc: "how long a running job stays locked to its worker without renewal; a killed worker's job is taken over after this",
  },
  recoverySweepMs: {
    env: 'RECOVERY_SWEEP_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 100,
    max: 3_600_000,
    default: { value: 60_000 },
    doc: 'how often the worker resumes applies whose job gave up and rolls forward stuck transition claims (docs/operating/reliability.md "Recovery bounds")',
  },
  workerStalledIntervalMs: {
    env: 'WORKER_STALLED_INTERVAL_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 500,
    max: 600_000,
    default: { value: 15_000 },
    doc: 'how often a worker looks for jobs whose worker died (lock lapsed) and runs them again',
  },
  ferretdbPostgresUrl: {
    env: 'FERRETDB_POSTGRES_URL',
    usedBy: ['api', 'worker'],
    type: 'string',
    pattern: /^postgres(ql)?:\/\/.+/,
    secret: true,
    expected: 'a `postgres://` URL of the PostgreSQL database FerretDB stores in',
    default: { value: '' },
    doc: 'only with FerretDB on PostgreSQL: where to create the GIN indexes its query pushdown can use, and where the API and worker read book pages, whole accounts and the records a job reads in SQL and a staging writes its locks, operation, event and answer in one SQL statement (docs/indexes.md; up to 12 sessions per process); empty: skipped with a warning, and all of it goes through FerretDB',
  },
  stagedTtlHours: {
    env: 'STAGED_TTL_HOURS',
    usedBy: ['worker'],
    type: 'integer',
    min: 1,
    max: 9999,
    default: { value: 168 },
    doc: 'hours a staged operation waits for approval and apply before the hourly sweep expires it (168 = 7 days)',
  },
  queuePrefix: {
    // One optional `{hash tag}` for Redis Cluster (docs/operating/scaling.md).
    env: 'QUEUE_PREFIX',
    usedBy: ['api', 'worker'],
    type: 'string',
    pattern: /^(?=.{1,64}$)[A-Za-z0-9_-]*(\{[A-Za-z0-9_-]+\})?[A-Za-z0-9_-]*$/,
    expected: '1 to 64 letters, digits, `_` and `-`, with at most one `{hash tag}` of them (e.g. `{bookstage}`)',
    default: { value: 'bookstage' },
    doc: 'BullMQ key prefix; the API and the workers must agree on it',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    usedBy: ['api', 'worker'],
    type: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: { value: 'info' },
    doc: 'pino log level',
  },
  rateLimitRequests: {
    env: 'RATE_LIMIT_REQUESTS',
    usedBy: ['api'],
    type: 'integer',
    min: 1,
    max: 100_000_000,
    default: { value: 600 },
    doc: 'requests one API token may make per window (`RATE_LIMIT_WINDOW_S`), counted in Redis across all API replicas; over it: 429 `rate_limited` with `Retry-After`. `/healthz`, `/readyz` and `/metrics` are not counted',
  },
  rateLimitWindowS: {
    env: 'RATE_LIMIT_WINDOW_S',
    usedBy: ['api'],
    type: 'integer',
    min: 1,
    max: 86_400,
    default: { value: 60 },
    doc: "the rate limit's window in seconds",
  },
  rateLimitAuthFailures: {
    env: 'RATE_LIMIT_AUTH_FAILURES',
    usedBy: ['api'],
    type: 'integer',
    min: 1,
    max: 100_000_000,
    default: { value: 60 },
    doc: 'bearer tokens that are not found one client address may present per window (`RATE_LIMIT_WINDOW_S`), counted in each API process before the token is looked up; over it that address gets 429 `rate_limited` without a store read, except for tokens the process already knows (docs/reference/http-api.md §5)',
  },
  workerMetricsPort: {
    env: 'WORKER_METRICS_PORT',
    usedBy: ['worker'],
    type: 'integer',
    min: 0,
    max: 65535,
    default: { value: 9464 },
    doc: "port of the worker's own `GET /metrics` and `GET /healthz` (docs/operating/metrics.md); `0` picks a free port and logs it. A port already taken is logged as an error and the worker runs on without them",
  },
  workerMetricsHost: {
    env: 'WORKER_METRICS_HOST',
    usedBy: ['worker'],
    type: 'string',
    pattern: /^[A-Za-z0-9.:-]{1,253}$/,
    expected: 'an address or host name to listen on, e.g. `127.0.0.1` or `0.0.0.0`',
    default: { value: '127.0.0.1' },
    doc: "address the worker's `/metrics` and `/healthz` listen on; loopback by default, as they have no authentication (`0.0.0.0` for a scraper on another host, e.g. in a container)",
  },
  tokenCacheMs: {
    env: 'TOKEN_CACHE_MS',
    usedBy: ['api'],
    type: 'integer',
    min: 0,
    max: 600_000,
    default: { value: 10_000 },
    doc: 'milliseconds an API process reuses a bearer token it has looked up (`0`: every request reads the store); a token deleted from the store still works this long (docs/reference/http-api.md, authentication)',
  },
  /** HMAC key of opaque list cursors; every API replica must have the same one (see cursorSecretFor). */
  cursorSecret: {
    env: 'CURSOR_SECRET',
    usedBy: ['api'],
    type: 'string',
    pattern: /^[\x21-\x7E]{32,512}$/,
    secret: true,
    requiredInProduction: true,
    expected: '32 to 512 printable ASCII characters without spaces',
    default: { derived: { doc: 'derived from `MONGO_URL`', from: (read) => cursorSecretFor(String(read.mongoUrl)) } },
    doc: "HMAC secret of the duplicate overview's paging cursors; set it in production. Every API replica must have the same one",
  },
  webhookAllowInsecure: {
    env: 'WEBHOOK_ALLOW_INSECURE',
    usedBy: ['api', 'worker'],
    type: 'enum',
    values: ['true', 'false'],
    default: { value: 'false' },
    doc: '`true` lets webhook endpoints use `http` and loopback or private addresses (local development, tests; `npm start` sets it). Never in production (docs/reference/webhooks.md)',
  },
  webhookSecretKey: {
    env: 'WEBHOOK_SECRET_KEY',
    usedBy: ['api', 'worker'],
    type: 'string',
    pattern: /^[\x21-\x7E]{32,512}$/,
    secret: true,
    requiredInProduction: true,
    expected: '32 to 512 printable ASCII characters without spaces',
    default: { derived: { doc: 'derived from `MONGO_URL`', from: (read) => webhookKeyFor(String(read.mongoUrl)) } },
    doc: 'key that encrypts webhook signing secrets at rest; the API and every worker must have the same one. Set it in production (docs/reference/webhooks.md)',
  },
  webhookMaxAttempts: {
    env: 'WEBHOOK_MAX_ATTEMPTS',
    usedBy: ['worker'],
    type: 'integer',
    min: 1,
    max: 50,
    default: { value: 8 },
    doc: 'delivery attempts of one event to one endpoint before it is given up (docs/reference/webhooks.md)',
  },
  webhookBackoffMs: {
    env: 'WEBHOOK_BACKOFF_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 10,
    max: 86_400_000,
    default: { value: 30_000 },
    doc: 'first retry delay of a failed delivery, doubling each attempt (8 attempts from 30 s span about 64 minutes)',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 100,
    max: 60_000,
    default: { value: 10_000 },
    doc: 'how long a receiver has to answer 2xx before the attempt counts as failed',
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    usedBy: ['worker'],
    type: 'integer',
    min: 1,
    max: 999,
    default: { value: 8 },
    doc: 'webhook endpoints one worker process delivers to at once, all organisations together (a queue and slots of their own, apart from staging)',
  },
  webhookOrgConcurrency: {
    env: 'WEBHOOK_ORG_CONCURRENCY',
    usedBy: ['worker'],
    type: 'integer',
    min: 1,
    max: 999,
    default: { value: 2 },
    doc: "endpoints of one organisation delivered to at once across all workers: one organisation's slow receivers cannot hold every delivery slot",
  },
  webhookDispatchEveryMs: {
    env: 'WEBHOOK_DISPATCH_EVERY_MS',
    usedBy: ['worker'],
    type: 'integer',
    min: 100,
    max: 600_000,
    default: { value: 1000 },
    doc: 'how often the worker looks for webhook endpoints with events to deliver',
  },
  eventRetentionDays: {
    env: 'EVENT_RETENTION_DAYS',
    usedBy: ['worker'],
    type: 'integer',
    min: 30,
    max: 3650,
    default: { value: 30 },
    doc: 'days the event feed and webhook delivery attempts are kept; the hourly maintenance job removes older ones',
  },
} as const satisfies Record<string, ConfigVariable>;

type ValueOf<V extends ConfigVariable> = V extends IntegerVariable ? number : string;

/** The validated configuration: one field per entry of CONFIG_VARIABLES. */
export type Config = { -readonly [K in keyof typeof CONFIG_VARIABLES]: ValueOf<(typeof CONFIG_VARIABLES)[K]> };

export class ConfigError extends Error {}

/** What a valid value looks like, said the same way in the error message and the configuration table. */
export function expectedValue(variable: ConfigVariable): string {
  switch (variable.type) {
    case 'string':
      return variable.expected;
    case 'integer':
      return `an integer from ${variable.min} to ${variable.max}`;
    case 'enum':
      return `one of ${variable.values.map((v) => `\`${v}\``).join(', ')}`;
  }
}

/** The default as the configuration table states it. */
export function defaultText(variable: ConfigVariable): string {
  const d: VariableDefault<string | number> = variable.default;
  if ('required' in d) return 'required';
  const text = 'value' in d ? `\`${d.value}\`` : d.derived.doc;
  return variable.requiredInProduction ? `required when \`NODE_ENV=production\`; else ${text}` : text;
}

const INTEGER = /^[0-9]{1,15}$/;

/** The parsed value of a set variable, or null when it is not valid. */
function parseValue(variable: ConfigVariable, raw: string): string | number | null {
  switch (variable.type) {
    case 'string':
      return variable.pattern.test(raw) ? raw : null;
    case 'enum':
      return variable.values.includes(raw) ? raw : null;
    case 'integer': {
      const n = INTEGER.test(raw) ? Number(raw) : NaN;
      return n >= variable.min && n <= variable.max ? n : null;
    }
  }
}

function problem(variable: ConfigVariable, raw: string | undefined): string {
  const expected = expectedValue(variable).replace(/`/g, '');
  const fallback = 'required' in variable.default ? '' : ` (default ${defaultText(variable).replace(/`/g, '')})`;
  if (raw === undefined) return `${variable.env} is not set: expected ${expected}`;
  // A number reads as itself; anything else is quoted, so blanks and quotes stay visible.
  const shown = variable.secret
    ? `${raw.length} characters, not shown`
    : variable.type === 'integer' && INTEGER.test(raw)
      ? raw
      : JSON.stringify(raw);
  return `${variable.env} is invalid (${shown}): expected ${expected}${fallback}`;
}

/** `forProcess`: a variable required in production is required only of the processes that read it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, forProcess?: ConfigProcess): Config {
  const read: Record<string, string | number> = {};
  const problems: string[] = [];
  const derived: Array<[string, (read: ReadValues) => string | number]> = [];
  for (const [field, variable] of Object.entries(CONFIG_VARIABLES) as Array<[string, ConfigVariable]>) {
    // An empty variable counts as unset, as shells and compose files often leave them.
    const raw = env[variable.env] === '' ? undefined : env[variable.env];
    const d: VariableDefault<string | number> = variable.default;
    if (raw === undefined) {
      if ('required' in d) problems.push(problem(variable, raw));
      else if (
        variable.requiredInProduction &&
        env.NODE_ENV === 'production' &&
        (!forProcess || variable.usedBy.includes(forProcess))
      ) {
        problems.push(
          `${variable.env} is not set: required when NODE_ENV=production (expected ${expectedValue(variable).replace(/`/g, '')})`,
        );
      } else if ('value' in d) read[field] = d.value;
      else derived.push([field, d.derived.from]);
      continue;
    }
    const value = parseValue(variable, raw);
    if (value === null) problems.push(problem(variable, raw));
    else read[field] = value;
  }
  // why: BullMQ's scripts touch several keys of a queue at once; on a Redis Cluster they must share one slot (docs/operating/scaling.md).
  if (
    typeof read.redisUrl === 'string' &&
    read.redisUrl.startsWith('redis+cluster://') &&
    typeof read.queuePrefix === 'string' &&
    !read.queuePrefix.includes('{')
  ) {
    problems.push(
      `QUEUE_PREFIX is invalid (${JSON.stringify(read.queuePrefix)}): a Redis Cluster (REDIS_URL redis+cluster://) needs a {hash tag} in it, e.g. {bookstage}`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  for (const [field, from] of derived) read[field] = from(read);
  // Every field of CONFIG_VARIABLES is now set with its declared type.
  return read as Config;
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

/** The default webhook secret key, derived like the cursor secret; set WEBHOOK_SECRET_KEY in production. */
export function webhookKeyFor(mongoUrl: string): string {
  return createHash('sha256').update(`bookstage webhook key v1\n${mongoUrl}`, 'utf8').digest('base64url');
}

/** For process entry points: print the problem and exit 78 (EX_CONFIG). */
export function loadConfigOrExit(forProcess: ConfigProcess): Config {
  try {
    return loadConfig(process.env, forProcess);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
