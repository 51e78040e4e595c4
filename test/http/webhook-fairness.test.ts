// Webhook deliveries are fair between organisations (docs/reference/webhooks.md
// "Fair between organisations"), on the real stack with receivers on
// loopback: one organisation's endpoints that never answer hold at most
// WEBHOOK_ORG_CONCURRENCY delivery slots, so another organisation's delivery
// goes out while they hang, and neither the dispatch nor staging waits for
// them. The worker runs with a long delivery time-out, so that the hanging
// requests stay open until the test lets them go: a delivery of the other
// organisation that could only go out once they timed out fails the test.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { ReconcileData } from '../helpers/answers.js';
import { endpoint } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { receiver, waitUntil } from '../helpers/receiver.js';
import { stack } from '../helpers/stack.js';
import { RECONCILE, reconcileScenario } from '../faults/fault-scenario.js';
import { loadConfig } from '../../shared/config.js';

/** A receiver that holds every request open until `release()`, and counts requests that closed while held. */
async function hangingReceiver() {
  const held: ServerResponse[] = [];
  const state = { requests: 0, closedWhileHeld: 0, released: false };
  const server = createServer((req, res) => {
    state.requests += 1;
    req.resume();
    if (state.released) {
      res.writeHead(200).end('ok');
      return;
    }
    held.push(res);
    res.on('close', () => {
      if (!state.released) state.closedWhileHeld += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    state,
    held: () => held.filter((res) => !res.writableEnded && !res.destroyed).length,
    release() {
      state.released = true;
      for (const res of held) if (!res.writableEnded && !res.destroyed) res.writeHead(200).end('ok');
    },
    async close() {
      this.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook deliveries are fair between organisations', function () {
  this.timeout(300_000);

  it("four endpoints of one organisation that never answer hold at most its slots: another organisation's delivery goes out while they hang", async () => {
    const s = await stack();
    const orgLimit = loadConfig({ ...process.env }).webhookOrgConcurrency;
    // A delivery time-out longer than the test waits: the hanging requests end only when released.
    await s.stopWorker();
    await s.startWorker({ WEBHOOK_TIMEOUT_MS: '60000' });
    const hanging = await hangingReceiver();
    const quick = await receiver();
    try {
      const a = await reconcileScenario();
      for (let i = 0; i < 4; i += 1) await endpoint(a.books.orgId, `${hanging.url}?endpoint=${i}`);
      const b = await reconcileScenario();
      await endpoint(b.books.orgId, quick.url);

      const stagedA = await call<ReconcileData>('POST', RECONCILE, { token: a.who.alice, body: a.body });
      expect(stagedA.status, JSON.stringify(stagedA.body)).to.equal(201);
      await waitUntil("organisation A's deliveries hanging", () => hanging.held() >= Math.min(orgLimit, 4), 60_000);

      // Staging goes on beside hanging deliveries; its event reaches B's receiver while A's requests are still held.
      const stagedB = await call<ReconcileData>('POST', RECONCILE, { token: b.who.alice, body: b.body });
      expect(stagedB.status, JSON.stringify(stagedB.body)).to.equal(201);
      await waitUntil(
        "organisation B's delivery, or one of A's requests ending",
        () => quick.received.length > 0 || hanging.state.closedWhileHeld > 0,
        90_000,
      );
      expect({ b_delivered: quick.received.length, a_ended_early: hanging.state.closedWhileHeld }).to.deep.equal({
        b_delivered: 1,
        a_ended_early: 0,
      });
      expect(hanging.held(), "A's requests in flight").to.be.at.most(orgLimit);
      expect(hanging.state.requests, "A's requests sent").to.equal(hanging.held());

      // Released, A's other endpoints get their event too: the slots were only waited for.
      hanging.release();
      await waitUntil("every one of A's endpoints delivered", () => hanging.state.requests >= 4, 60_000);
    } finally {
      await hanging.close();
      await quick.close();
      await s.stopWorker();
      await s.startWorker();
    }
  });
});
