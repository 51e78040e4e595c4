// Network faults between the processes and their servers (docs/operating/reliability.md
// "Network faults"): a toxiproxy (scripts/services/toxiproxy.ts) sits between
// an API and worker of this test's own and the suite's Redis and MongoDB.
// Latency, dropped connections and half-open sockets: every keyed call still
// ends with one operation, and while a server does not answer the API says
// 503 dependency_unavailable instead of hanging.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { projectRoot } from '../../scripts/services/lifecycle.js';
import { ensureToxiproxyBinary, startToxiproxy, type Toxiproxy } from '../../scripts/services/toxiproxy.js';
import { stack } from '../helpers/stack.js';
import { burstBooks, expectConverged, keyedBurst } from './keyed-burst.js';
import { ownDatabase, ownStack, type OwnStack } from './own-stack.js';
import { SOAK } from './fault-scenario.js';

const BURST = SOAK ? 100 : 30;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The same URL, through the proxy's port. */
function through(url: string, port: number): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${port}`;
  return u.toString();
}

async function stageOnce(
  s: OwnStack,
  token: string,
  entry: string,
  key: string,
): Promise<{ status: number; code?: string; id?: string }> {
  const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
    method: 'POST',
    body: '{}',
    signal: AbortSignal.timeout(25_000),
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': key,
      prefer: 'wait=5',
    },
  });
  const body = (await res.json()) as { data?: { staged_operation_id?: string }; error?: { code?: string } };
  return { status: res.status, code: body.error?.code, id: body.data?.staged_operation_id };
}

/** Retry one key until it is staged (a client after a fault), within a limit. */
async function stagedEventually(s: OwnStack, token: string, entry: string, key: string): Promise<string> {
  const until = Date.now() + 60_000;
  for (;;) {
    const a = await stageOnce(s, token, entry, key);
    if (a.status === 201) return a.id!;
    expect([202, 503], JSON.stringify(a)).to.include(a.status);
    expect(Date.now(), `${key} was never staged`).to.be.below(until);
    await sleep(300);
  }
}

describe('faults: network faults between the processes and Redis/MongoDB (toxiproxy)', function () {
  this.timeout(180_000);
  let proxy: Toxiproxy;
  let s: OwnStack;
  const logDir = mkdtempSync(join(tmpdir(), 'bookstage-toxiproxy-'));
  before(async function () {
    // The first run builds toxiproxy from the Go module proxy.
    this.timeout(300_000);
    await stack();
    const binary = ensureToxiproxyBinary(join(projectRoot, '.cache'));
    proxy = await startToxiproxy(binary, join(logDir, 'toxiproxy.log'));
    const redisPort = await proxy.proxy('redis', Number(new URL(process.env.REDIS_URL!).port));
    const mongoPort = await proxy.proxy('mongo', Number(new URL(process.env.MONGO_URL!).port));
    const direct = ownDatabase(process.env.MONGO_URL!);
    s = await ownStack({
      mongoUrl: through(direct, mongoPort),
      redisUrl: through(process.env.REDIS_URL!, redisPort),
      directMongoUrl: direct,
    });
  });
  after(async () => {
    await s?.close();
    await proxy?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    // Whatever a test left on the links goes; the next test starts healthy.
    for (const name of ['redis', 'mongo']) {
      await proxy.setEnabled(name, true);
      for (const toxic of ['latency', 'reset', 'half-open'])
        await proxy.removeToxic(name, toxic).catch(() => undefined);
    }
  });

  it(`with latency on every Redis and MongoDB link, a burst of ${BURST} keyed staging calls: one operation per key, none doubled, no orphaned lock`, async () => {
    for (const name of ['redis', 'mongo']) {
      await proxy.addToxic(name, {
        name: 'latency',
        type: 'latency',
        stream: 'downstream',
        attributes: { latency: 40, jitter: 20 },
      });
    }
    const bb = await burstBooks(s, BURST);
    await expectConverged(s.db, bb, await keyedBurst(s, bb, 'latency'));
  });

  it(`connections dropped during a burst (MongoDB reset by peer, the Redis link cut and restored): every call answers in the end, one operation per key, no orphaned lock`, async () => {
    const bb = await burstBooks(s, BURST);
    const faults: Array<Promise<void>> = [];
    const outcome = await keyedBurst(s, bb, 'dropped', {
      onFirstAnswers: (count) => {
        if (count !== Math.floor(BURST / 3)) return;
        faults.push(
          (async () => {
            await proxy.addToxic('mongo', {
              name: 'reset',
              type: 'reset_peer',
              stream: 'upstream',
              attributes: { timeout: 0 },
            });
            await sleep(1_000);
            await proxy.removeToxic('mongo', 'reset');
            await proxy.setEnabled('redis', false);
            await sleep(1_000);
            await proxy.setEnabled('redis', true);
          })(),
        );
      },
    });
    expect(faults, 'the links were cut during the burst').to.have.length(1);
    await Promise.all(faults);
    await expectConverged(s.db, bb, outcome);
  });

  for (const [name, dependency] of [
    ['redis', 'Redis'],
    ['mongo', 'MongoDB'],
  ] as const) {
    it(`a half-open ${dependency} socket (data swallowed, the connection kept open): the API answers 503 (outcome_unknown for a Redis add, else dependency_unavailable) instead of hanging; healed, the same key stages once`, async () => {
      const bb = await burstBooks(s, 1);
      const key = `half-open-${name}`;
      await proxy.addToxic(name, {
        name: 'half-open',
        type: 'timeout',
        stream: 'upstream',
        attributes: { timeout: 0 },
      });
      const during = await stageOnce(s, bb.token, bb.entries[0]!, key);
      // Redis: the add may have reached it, so the answer cannot say "nothing was done" (docs/operating/reliability.md "Redis stalls").
      expect(during, JSON.stringify(during)).to.include({
        status: 503,
        code: name === 'redis' ? 'outcome_unknown' : 'dependency_unavailable',
      });
      // Polling a job reads its stored answer (MongoDB, the same reads as above), then the job in Redis: that may not hang either.
      if (name === 'redis') {
        const polled = await fetch(`http://127.0.0.1:${s.port}/api/v1/cli/jobs/job_${key}`, {
          headers: { authorization: `Bearer ${bb.token}` },
          signal: AbortSignal.timeout(25_000),
        });
        expect(polled.status).to.equal(503);
        expect(((await polled.json()) as { error: { code: string } }).error.code).to.equal('dependency_unavailable');
      }
      await proxy.removeToxic(name, 'half-open');
      const first = await stagedEventually(s, bb.token, bb.entries[0]!, key);
      expect(await stagedEventually(s, bb.token, bb.entries[0]!, key), 'a retry of the key').to.equal(first);
      await expectConverged(s.db, bb, { operationByKey: new Map([[key, first]]), seen: {} });
    });
  }
});
