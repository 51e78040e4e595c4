// An API and a worker of a fault test's own, on URLs the test chooses (its
// own Redis or FerretDB it restarts, or a toxiproxy in front of the suite's
// servers), so the faults it makes never reach the shared stack of
// test/helpers/stack.ts. The test reads and writes the database directly
// (`directMongoUrl`), never through a fault.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from 'mongodb';
import { startApi, type ApiRuntime } from '../../api/runtime.js';
import { loadConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { importBooks } from '../../shared/books/import.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { createToken } from '../../shared/storage/api-tokens.js';
import { connectMongo, type Mongo } from '../../shared/storage/mongo.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.js';

const workerMain = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'worker', 'main.js');

export interface OwnStackOptions {
  /** What the API and worker connect to. */
  mongoUrl: string;
  redisUrl: string;
  /** What the test reads and writes by: the same database, no proxy in between. */
  directMongoUrl: string;
}

export interface OwnStack {
  port: number;
  db: Db;
  workerLogs: string[];
  load(file: BooksFile): Promise<void>;
  token(orgId: string, scopes: TokenScope[], actor?: string): Promise<string>;
  close(): Promise<void>;
}

/** A database name of its own on the given server URL. */
export function ownDatabase(url: string): string {
  const u = new URL(url);
  u.pathname = `/bookstage_faults_${randomBytes(4).toString('hex')}`;
  return u.toString();
}

export async function ownStack(options: OwnStackOptions): Promise<OwnStack> {
  // Short lock and stall check, as in the shared stack: a job cut off from Redis is taken over in seconds.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGO_URL: options.mongoUrl,
    REDIS_URL: options.redisUrl,
    QUEUE_PREFIX: `bst-faults-${randomBytes(4).toString('hex')}`,
    PORT: '0',
    LOG_LEVEL: 'info',
    STAGE_WAIT_MS: '10000',
    WORKER_LOCK_DURATION_MS: '3000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    STAGE_JOB_BACKOFF_MS: '200',
    // Bursts of keyed retries must never meet the per-token limit; workers of several stacks share the machine.
    RATE_LIMIT_REQUESTS: '10000000',
    RATE_LIMIT_AUTH_FAILURES: '10000000',
    WORKER_METRICS_PORT: '0',
  };
  delete env.BOOKSTAGE_TEST_FAULTS;
  const config = loadConfig(env);
  const direct: Mongo = await connectMongo(options.directMongoUrl);
  const api: ApiRuntime = await startApi(config, createLogger('api', 'silent'));
  const workerLogs: string[] = [];
  const worker: ChildProcess = spawn(process.execPath, [...WORKER_NODE_FLAGS, workerMain], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`worker did not become ready:\n${workerLogs.join('\n')}`)), 30_000);
    worker.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      workerLogs.push(...lines.filter(Boolean));
      if (lines.some((l) => l.includes('"worker ready"'))) {
        clearTimeout(timer);
        resolve();
      }
    });
    worker.stderr!.on('data', (chunk: Buffer) => workerLogs.push(chunk.toString()));
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited ${code}:\n${workerLogs.join('\n')}`));
    });
  });
  return {
    port: api.port,
    db: direct.db,
    workerLogs,
    async load(file) {
      const result = await importBooks(direct.db, file);
      if (!result.ok) throw new Error(`books refused: ${JSON.stringify(result.errors)}`);
    },
    async token(orgId, scopes, actor = 'alice') {
      return (await createToken(direct.db, { org_id: orgId, actor, scopes })).token;
    },
    async close() {
      // SIGKILL: a worker cut off from its servers may not finish a graceful stop; the test is over.
      if (worker.exitCode === null && worker.signalCode === null) {
        await new Promise<void>((resolve) => {
          worker.once('exit', () => resolve());
          worker.kill('SIGKILL');
        });
      }
      await api.close();
      await direct.db.dropDatabase().catch(() => undefined);
      await direct.client.close();
    },
  };
}
