// `npm start` as a test runs it (docs/guide/quick-start.md): the built demo in
// a process group of its own, as a terminal gives a foreground job, on a
// database and Redis database of the test's own, removed afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import { connectMongo } from '../../shared/storage/mongo.js';

export interface Demo {
  child: ChildProcess;
  printout: string;
  stderr: () => string;
}

/** Starts the demo and resolves once its printout is complete (up to "Ctrl-C stops"). */
export function startDemo(env: NodeJS.ProcessEnv): Promise<Demo> {
  const child = spawn(process.execPath, [join(projectRoot, 'dist', 'scripts', 'demo.js')], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ctrl-C stops')) resolve({ child, printout: out, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before printing: ${err}${out}`)));
  });
}

/** The environment the printout's `export` lines set, as a shell would after pasting them. */
export function exportedEnv(printout: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of printout.matchAll(/^ {2}export (.+)$/gm)) {
    for (const pair of m[1]!.split(' ')) {
      const eq = pair.indexOf('=');
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

/**
 * A second terminal's environment once the `export` lines are pasted: the
 * test's own settings of the variables the project reads (MONGO_URL,
 * REDIS_URL, FERRETDB_POSTGRES_URL, BOOKSTAGE_*) removed, the exported ones
 * set; the rest (PATH, HOME) as the terminal has it.
 */
export function pastedEnv(printout: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(MONGO_URL|REDIS_URL|FERRETDB_POSTGRES_URL|BOOKSTAGE_\w+)$/.test(key))
      env[key] = value;
  }
  return { ...env, ...exportedEnv(printout) };
}

/** Removes what a demo run left: its database, its Redis database and its folder. */
export async function removeDemoData(mongoUrl: string, redisUrl: string, dir: string): Promise<void> {
  const mongo = await connectMongo(mongoUrl);
  try {
    await mongo.db.dropDatabase();
  } finally {
    await mongo.client.close();
  }
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  await redis.flushdb();
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
}
