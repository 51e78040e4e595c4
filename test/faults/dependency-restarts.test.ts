// Dependency restarts (docs/operating/reliability.md "Redis or the MongoDB-wire server restarted"): a burst of 100 keyed
// staging calls while Redis (AOF on) or the MongoDB-wire server (FerretDB)
// is killed and started again. Every call answers for good in the end
// (directly, by replay or via its job), every retry of a key names the same
// operation, no operation is doubled and no lock is orphaned. The servers
// are the test's own; the shared stack never sees the restart.
import { expect } from 'chai';
import { stack } from '../helpers/stack.js';
import { burstBooks, expectConverged, keyedBurst } from './keyed-burst.js';
import { ownDatabase, ownStack, type OwnStack } from './own-stack.js';
import { ownFerretDb, ownRedisWithAof, type Restartable } from './restartable-servers.js';
import { SOAK } from './fault-scenario.js';

const CALLS = 100;
const ROUNDS = SOAK ? 3 : 1;

async function burstAcrossRestart(s: OwnStack, server: Restartable, label: string): Promise<void> {
  const bb = await burstBooks(s, CALLS);
  const restarts: Array<Promise<void>> = [];
  const outcome = await keyedBurst(s, bb, label, {
    // A third of the calls in, the server dies and comes back.
    onFirstAnswers: (count) => {
      if (count === Math.floor(CALLS / 3)) restarts.push(server.restart('SIGKILL'));
    },
  });
  expect(restarts, 'the server was restarted during the burst').to.have.length(1);
  await Promise.all(restarts);
  await expectConverged(s.db, bb, outcome);
}

describe('faults: Redis (AOF on) killed and restarted during a burst of 100 keyed staging calls', function () {
  this.timeout(240_000);
  let redis: Restartable;
  let s: OwnStack;
  before(async () => {
    await stack();
    redis = await ownRedisWithAof();
    const mongoUrl = ownDatabase(process.env.MONGO_URL!);
    s = await ownStack({ mongoUrl, redisUrl: redis.url, directMongoUrl: mongoUrl });
  });
  after(async () => {
    await s?.close();
    await redis?.close();
  });
  for (let round = 1; round <= ROUNDS; round += 1) {
    it(`every call answers in the end, each key names one operation, none doubled, no orphaned lock${ROUNDS > 1 ? ` (round ${round})` : ''}`, async () => {
      await burstAcrossRestart(s, redis, `redis-${round}`);
    });
  }
});

describe('faults: the MongoDB-wire server (FerretDB) killed and restarted during a burst of 100 keyed staging calls', function () {
  this.timeout(240_000);
  let ferret: Restartable | null;
  let s: OwnStack;
  before(async function () {
    await stack();
    ferret = await ownFerretDb();
    // Servers given by URL or run in Docker: there is no FerretDB of our own to restart.
    if (!ferret) this.skip();
    const url = ownDatabase(ferret.url);
    s = await ownStack({ mongoUrl: url, redisUrl: process.env.REDIS_URL!, directMongoUrl: url });
  });
  after(async () => {
    await s?.close();
    await ferret?.close();
  });
  for (let round = 1; round <= ROUNDS; round += 1) {
    it(`every call answers in the end, each key names one operation, none doubled, no orphaned lock${ROUNDS > 1 ? ` (round ${round})` : ''}`, async () => {
      await burstAcrossRestart(s, ferret!, `ferret-${round}`);
    });
  }
});
