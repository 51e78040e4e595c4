// One real stack per test run: the servers come from MONGO_URL/REDIS_URL
// (set by scripts/run-tests), the API runs in-process on a free port, the
// worker runs as a real child process whose JSON log lines are kept for
// assertions. Started lazily, so unit-only runs need no servers.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from 'mongodb';
import { startApi, type ApiRuntime } from '../../api/runtime.js';
import { loadConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { createToken } from '../../shared/storage/api-tokens.js';
import { importBooks } from '../../shared/books/import.js';
import { connectMongo, type Mongo } from '../../shared/storage/mongo.js';
import { startServices, stopServices } from '../../scripts/services/lifecycle.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';

// This file runs as dist/test/helpers/stack.js; the worker entry is dist/worker/main.js.
const workerMain = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'worker', 'main.js');

export interface Stack {
  config: Config;
  db: Db;
  baseUrl: string;
  apiLogs: string[];
  workerLogs: string[];
  /** Load books through the same importer as `admin books import`; throws on a refused file. */
  load(file: BooksFile): Promise<void>;
  token(orgId: string, scopes: TokenScope[], actor?: string): Promise<string>;
  /** Start the worker, optionally with extra environment (e.g. BOOKSTAGE_TEST_FAULTS); a no-op while one runs. */
  startWorker(extraEnv?: Record<string, string>): Promise<void>;
  /** SIGKILL the worker: a crash, nothing finishes. */
  killWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  restartApi(): Promise<void>;
}

let started: Promise<Stack & { close(): Promise<void> }> | null = null;

export function stack(): Promise<Stack> {
  started ??= start();
  return started;
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    if (started) await (await started).close();
  },
};

async function start(): Promise<Stack & { close(): Promise<void> }> {
  let ownServices: string | null = null;
  if (!process.env.MONGO_URL || !process.env.REDIS_URL) {
    ownServices = `test-${process.pid}`;
    const urls = await startServices(ownServices);
    process.env.MONGO_URL = urls.mongoUrl.replace(/\/bookstage$/, `/bookstage_test_${randomBytes(4).toString('hex')}`);
    process.env.REDIS_URL = urls.redisUrl;
    if (urls.postgresUrl) process.env.FERRETDB_POSTGRES_URL = urls.postgresUrl;
  }
  // Short lock and stall check so a killed worker's job is taken over in seconds, not the production 30 s.
  const env = {
    ...process.env,
    QUEUE_PREFIX: `bst-test-${randomBytes(4).toString('hex')}`,
    PORT: '0',
    LOG_LEVEL: 'info',
    STAGE_WAIT_MS: '15000',
    WORKER_LOCK_DURATION_MS: '3000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    STAGE_JOB_BACKOFF_MS: '200',
    // A limit no test reaches (test/ops/rate-limit.test.ts starts an API of its own with a low one); any free metrics port.
    RATE_LIMIT_REQUESTS: '10000000',
    RATE_LIMIT_AUTH_FAILURES: '10000000',
    WORKER_METRICS_PORT: '0',
    // Webhooks to the tests' local receivers, retried and dispatched fast (test/http/webhooks.test.ts sets its own for the refusal test).
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_BACKOFF_MS: '200',
    WEBHOOK_DISPATCH_EVERY_MS: '200',
    WEBHOOK_TIMEOUT_MS: '3000',
  };
  const config = loadConfig(env);
  const mongo: Mongo = await connectMongo(config.mongoUrl);

  const apiLogs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      apiLogs.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  let api: ApiRuntime = await startApi(config, createLogger('api', 'info', sink));

  const workerLogs: string[] = [];
  let worker: ChildProcess | null = null;
  const startWorker = async (extraEnv: Record<string, string> = {}): Promise<void> => {
    if (worker) return;
    const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, workerMain], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker = child;
    let buffer = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker did not become ready:\n${workerLogs.join('\n')}`)),
        30_000,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        workerLogs.push(...lines.filter(Boolean));
        if (lines.some((l) => l.includes('"worker ready"'))) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr.on('data', (chunk: Buffer) => workerLogs.push(chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        worker = null;
        reject(new Error(`worker exited ${code}:\n${workerLogs.join('\n')}`));
      });
    });
  };
  const stopWorker = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    const child = worker;
    if (!child) return;
    worker = null;
    await new Promise<void>((resolve) => {
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.kill(signal);
    });
  };
  try {
    await startWorker();
  } catch (err) {
    await api.close();
    await mongo.client.close();
    if (ownServices) await stopServices(ownServices);
    throw err;
  }

  const self = {
    config,
    db: mongo.db,
    get baseUrl() {
      return `http://127.0.0.1:${api.port}`;
    },
    apiLogs,
    workerLogs,
    async load(file: BooksFile) {
      const result = await importBooks(mongo.db, file);
      if (!result.ok) throw new Error(`books refused: ${JSON.stringify(result.errors)}`);
    },
    async token(orgId: string, scopes: TokenScope[], actor = 'alice') {
      return (await createToken(mongo.db, { org_id: orgId, actor, scopes })).token;
    },
    startWorker,
    stopWorker: () => stopWorker('SIGTERM'),
    killWorker: () => stopWorker('SIGKILL'),
    async restartApi() {
      await api.close();
      api = await startApi(config, createLogger('api', 'info', sink));
    },
    async close() {
      await stopWorker();
      await api.close();
      if (ownServices) {
        await mongo.db.dropDatabase();
        await mongo.client.close();
        await stopServices(ownServices);
      } else {
        await mongo.client.close();
      }
    },
  };
  return self;
}
