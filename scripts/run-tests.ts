// `npm test`: start this run's own servers (unless MONGO_URL/REDIS_URL are
// given), run the whole mocha suite once against them, stop them, and close
// with a plain `N passed, N failed` line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectMongo } from '../shared/storage/mongo.js';
import { projectRoot, startServices, stopServices } from './services/lifecycle.js';

async function main(): Promise<number> {
  const given = Boolean(process.env.MONGO_URL && process.env.REDIS_URL);
  const set = `test-${process.pid}`;
  let code = 1;
  const stop = async (): Promise<void> => {
    if (!given) await stopServices(set);
  };
  process.once('SIGINT', () => { void stop().then(() => process.exit(130)); });
  process.once('SIGTERM', () => { void stop().then(() => process.exit(143)); });
  try {
    const urls = await startServices(set);
    // A database of its own, so a run never sees another run's or a demo's data.
    const mongoUrl = new URL(urls.mongoUrl);
    mongoUrl.pathname = `/bookstage_test_${randomBytes(4).toString('hex')}`;
    try {
      // FERRETDB_POSTGRES_URL: the API and worker index this run's database in PostgreSQL too (docs/indexes.md).
      const postgres = urls.postgresUrl ? { FERRETDB_POSTGRES_URL: urls.postgresUrl } : {};
      code = await runMocha({ ...process.env, ...postgres, MONGO_URL: mongoUrl.toString(), REDIS_URL: urls.redisUrl });
    } finally {
      // Servers given by MONGO_URL outlive the run: leave no test database behind on them.
      if (given) await dropDatabase(mongoUrl.toString());
    }
  } finally {
    await stop();
  }
  return code;
}

async function dropDatabase(url: string): Promise<void> {
  const mongo = await connectMongo(url);
  try {
    await mongo.db.dropDatabase();
  } finally {
    await mongo.client.close();
  }
}

/**
 * Mocha adds spec files named on the command line to .mocharc.json's `spec`
 * (the whole suite) instead of replacing it: with files named, run just
 * those, with the rest of .mocharc.json's options.
 */
function mochaArgs(args: string[]): string[] {
  const named = args.some((a) => !a.startsWith('-') && /\.test\.js$/.test(a));
  if (!named) return args;
  const rc = JSON.parse(readFileSync(join(projectRoot, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
  const options = Object.entries(rc).filter(([key]) => key !== 'spec').flatMap(([key, value]) => {
    if (value === true) return [`--${key}`];
    return (Array.isArray(value) ? value : [value]).flatMap((v) => [`--${key}`, String(v)]);
  });
  return ['--no-config', ...options, ...args];
}

function runMocha(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const mocha = join(projectRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
    const child = spawn(process.execPath, [mocha, ...mochaArgs(process.argv.slice(2))], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-20_000);
    });
    child.on('exit', (code) => {
      // Mocha's summary lines, e.g. "  12 passing (3s)"; anchored so a test title never counts.
      const count = (word: string): number => Number(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'm').exec(tail)?.[1] ?? 0);
      process.stdout.write(`\ntests: ${count('passing')} passed, ${count('failing')} failed, ${count('pending')} skipped\n`);
      resolve(code ?? 1);
    });
  });
}

main().then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`npm test: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
