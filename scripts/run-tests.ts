// `npm test`: start this run's own servers (unless MONGO_URL/REDIS_URL are
// given), run the whole mocha suite once against them, stop them, and close
// with a plain `N passed, N failed` line. The whole suite runs in
// TEST_SHARDS concurrent mocha processes (default 2, scripts/test-shards.ts),
// each on a database and queue prefix of its own; files named on the command
// line run in one process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMongo } from '../shared/storage/mongo.js';
import { projectRoot, startServices, stopServices } from './services/lifecycle.js';
import { failureSection, summaryCount } from './mocha-summary.js';
import { readWeights, splitFiles, testFiles, type FileWeights } from './test-shards.js';

/** Where the reporter leaves each shard's file timings, and where they are merged for the next run's split. */
const TIMINGS_DIR = join(projectRoot, '.cache', 'test-timings');
const LAST_TIMINGS = join(projectRoot, '.cache', 'test-file-timings.json');
/** Measured on a quiet 2-core machine, kept in the repository so a fresh clone splits the suite evenly. */
const KEPT_TIMINGS = join(projectRoot, 'test', 'file-timings.json');

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
interface ShardResult extends Counts {
  code: number;
  label: string | null;
  failures: string | null;
}

async function main(): Promise<number> {
  const given = Boolean(process.env.MONGO_URL && process.env.REDIS_URL);
  const set = `test-${process.pid}`;
  const stop = async (): Promise<void> => {
    if (!given) await stopServices(set);
  };
  process.once('SIGINT', () => {
    void stop().then(() => process.exit(130));
  });
  process.once('SIGTERM', () => {
    void stop().then(() => process.exit(143));
  });
  const args = process.argv.slice(2);
  const named = args.some((a) => !a.startsWith('-') && /\.test\.js$/.test(a));
  const shards = named
    ? [null]
    : splitFiles(testFiles(projectRoot), readWeights([LAST_TIMINGS, KEPT_TIMINGS]), shardCount());
  rmSync(TIMINGS_DIR, { recursive: true, force: true });
  mkdirSync(TIMINGS_DIR, { recursive: true });
  try {
    const urls = await startServices(set);
    // FERRETDB_POSTGRES_URL: the API and worker index this run's database in PostgreSQL too (docs/indexes.md).
    const postgres = urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {};
    const runs = shards.map(async (files, i) => {
      // A database of its own per process, so a run never sees another run's, another shard's or a demo's data.
      const mongoUrl = new URL(urls.mongoUrl);
      mongoUrl.pathname = `/bookstage_test_${randomBytes(4).toString('hex')}`;
      try {
        const env = {
          ...process.env,
          ...postgres,
          MONGO_URL: mongoUrl.toString(),
          REDIS_URL: urls.redisUrl,
          BOOKSTAGE_TEST_TIMINGS_FILE: join(TIMINGS_DIR, `shard-${i + 1}.json`),
        };
        // The first process prints as it goes; the others' output follows, whole, when they end.
        return await runMocha(
          env,
          files ? [...args, ...files] : args,
          i === 0 ? 'live' : 'buffered',
          shards.length > 1 ? `shard ${i + 1}/${shards.length}` : null,
        );
      } finally {
        // Servers given by MONGO_URL outlive the run: leave no test database behind on them.
        if (given) await dropDatabase(mongoUrl.toString());
      }
    });
    const results = await Promise.all(runs);
    const total = results.reduce<Counts>(
      (sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed, skipped: sum.skipped + r.skipped }),
      { passed: 0, failed: 0, skipped: 0 },
    );
    if (!named) mergeTimings(shards.length);
    // A CI log is often read from its tail: the failures of every shard are
    // printed again here, next to the totals, not only where the shard's
    // output scrolled past them.
    for (const r of results) {
      const of = r.label ? ` of ${r.label}` : '';
      if (r.failures) process.stdout.write(`\n==== failures${of}, again\n${r.failures}`);
      else if (r.code !== 0)
        process.stdout.write(
          `\n==== mocha${of} exited with code ${r.code} before its summary: its own output, above, says why\n`,
        );
    }
    process.stdout.write(`\ntests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
    // A run that ran no test proves nothing, whatever mocha's exit codes say (a shard stopped by a signal can exit 0).
    if (total.passed + total.failed === 0) {
      process.stdout.write('npm test: no test ran\n');
      return 1;
    }
    return results.every((r) => r.code === 0) ? 0 : 1;
  } finally {
    await stop();
  }
}

function shardCount(): number {
  const n = Number(process.env.TEST_SHARDS ?? 2);
  return Number.isInteger(n) && n >= 1 && n <= 8 ? n : 2;
}

/** The shards' file timings as one file, for the next run's split. */
function mergeTimings(shards: number): void {
  const merged: FileWeights = {};
  for (let i = 1; i <= shards; i += 1) Object.assign(merged, readWeights([join(TIMINGS_DIR, `shard-${i}.json`)]));
  if (Object.keys(merged).length > 0)
    writeFileSync(LAST_TIMINGS, `${JSON.stringify(merged, Object.keys(merged).sort(), 2)}\n`);
}

async function dropDatabase(url: string): Promise<void> {
  const mongo = await connectMongo(url);
  try {
    await mongo.db.dropDatabase();
  } finally {
    await mongo.client.close();
  }
}

function runMocha(
  env: NodeJS.ProcessEnv,
  args: string[],
  output: 'live' | 'buffered',
  label: string | null,
): Promise<ShardResult> {
  return new Promise((resolve) => {
    const mocha = join(projectRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const child = spawn(process.execPath, [mocha, ...args], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const kept: Buffer[] = [];
    let text = '';
    if (label) process.stdout.write(`\n==== ${label}${output === 'buffered' ? ' (printed when it ends)' : ''}\n`);
    child.stdout.on('data', (chunk: Buffer) => {
      if (output === 'live') process.stdout.write(chunk);
      else kept.push(chunk);
      text += chunk.toString();
    });
    child.on('exit', (code) => {
      if (output === 'buffered') process.stdout.write(Buffer.concat([Buffer.from(`\n==== ${label ?? ''}\n`), ...kept]));
      resolve({
        code: code ?? 1,
        label,
        failures: failureSection(text),
        passed: summaryCount(text, 'passing'),
        failed: summaryCount(text, 'failing'),
        skipped: summaryCount(text, 'pending'),
      });
    });
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`npm test: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
