// `npm run services -- start|stop|reset`: start (or reuse) the checkout's
// local servers and print exactly two lines, `MONGO_URL=…` and `REDIS_URL=…`,
// on stdout (progress, and where the data is kept, go to stderr); stop what
// was started (the data stays in `.bookstage/data`); or reset: stop, then
// delete the kept data.
import { devDataDir, resetServices, startServices, stopServices } from './services/lifecycle.js';
import { log } from './services/processes.js';
import { migrateStore } from './services/migrate.js';

const DEV_SET = 'dev';

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'start') {
    const urls = await startServices(DEV_SET, { dataDir: devDataDir });
    await migrateStore(urls);
    if (!process.env.MONGO_URL || !process.env.REDIS_URL)
      log(`data kept in ${devDataDir} (\`npm run services -- reset\` wipes it)`);
    process.stdout.write(`MONGO_URL=${urls.mongoUrl}\nREDIS_URL=${urls.redisUrl}\n`);
  } else if (command === 'stop') {
    const stopped = await stopServices(DEV_SET);
    if (!stopped) process.stderr.write('bookstage services: nothing to stop\n');
  } else if (command === 'reset') {
    await resetServices(DEV_SET, devDataDir);
  } else {
    process.stderr.write('usage: npm run services -- start|stop|reset\n');
    process.exitCode = 2;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bookstage services: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
