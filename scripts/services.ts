// `npm run services -- start|stop`: start (or reuse) the checkout's local
// servers and print exactly two lines, `MONGO_URL=…` and `REDIS_URL=…`, on
// stdout (progress goes to stderr), or stop what was started.
import { startServices, stopServices } from './services/lifecycle.js';
import { migrateStore } from './services/migrate.js';

const SET = 'dev';

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'start') {
    const urls = await startServices(SET);
    await migrateStore(urls);
    process.stdout.write(`MONGO_URL=${urls.mongoUrl}\nREDIS_URL=${urls.redisUrl}\n`);
  } else if (command === 'stop') {
    const stopped = await stopServices(SET);
    if (!stopped) process.stderr.write('bookstage services: nothing to stop\n');
  } else {
    process.stderr.write('usage: npm run services -- start|stop\n');
    process.exitCode = 2;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bookstage services: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
