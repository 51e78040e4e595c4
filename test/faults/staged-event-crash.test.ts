// "No transition without its event, none with two" holds for `staged` too
// (docs/reference/webhooks.md "Written with the transition"): the worker is
// SIGKILLed between inserting the staged operation and recording its event
// (stage:crash-after-write), and its job is then lost for good (removed from
// the queue, as a job that died on every attempt ends). The operation still
// gets exactly one `staged` event, in the feed and delivered: from the
// recovery sweep, or from the first transition out of `staged`, whichever
// comes first.
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { createRedis } from '../../shared/queue/connection.js';
import { STAGE_QUEUE } from '../../shared/queue/stage-jobs.js';
import { bodies, documentedVerify, endpoint, feed, type FeedEvent } from '../helpers/events.js';
import { receiver, waitUntil, type Receiver } from '../helpers/receiver.js';
import { stack } from '../helpers/stack.js';
import { approve, docs } from '../helpers/staged.js';
import { reconcileScenario, stageCall, waitFor, workerPids, type Scenario } from './fault-scenario.js';

/** Stage with the worker dying right after it wrote the operation; then drop the job, so no retry records the event. Returns the operation's id. */
async function stagedWithoutEvent(sc: Scenario): Promise<string> {
  const s = await stack();
  await s.stopWorker();
  await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'stage:crash-after-write' });
  let jobId = '';
  try {
    const pending = await stageCall(sc, `lost-${sc.books.uid}`);
    expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
    jobId = pending.headers.get('location')!.split('/').pop()!;
    await waitFor('the worker to die at stage:crash-after-write', () => workerPids().length === 0, 30_000);
  } finally {
    await s.killWorker();
  }
  const connection = createRedis(s.config.redisUrl);
  const queue = new Queue(STAGE_QUEUE, { connection, prefix: s.config.queuePrefix });
  try {
    // The dead worker's lock lapses within WORKER_LOCK_DURATION_MS (3 s in the tests); a locked job cannot be removed.
    await waitFor(
      'the job removed',
      async () => {
        try {
          await (await queue.getJob(jobId))?.remove();
          return (await queue.getJob(jobId)) === undefined;
        } catch {
          return false;
        }
      },
      30_000,
      250,
    );
  } finally {
    await queue.close();
    connection.disconnect();
  }
  const ops = await docs('staged_operations', { org_id: sc.books.orgId });
  expect(ops, 'the operation was written').to.have.length(1);
  const id = String(ops[0]!._id);
  expect(await docs('audit_events', { staged_operation_id: id }), 'no event yet').to.have.length(0);
  return id;
}

async function expectDelivered(r: Receiver, secret: string, id: string, types: string[], token: string): Promise<void> {
  const verify = await documentedVerify();
  let events: FeedEvent[] = [];
  await waitUntil('the events in the feed', async () => (events = await feed(token)).length >= types.length, 60_000);
  expect(events.map((e) => [e.type, e.data.staged_operation.staged_operation_id])).to.deep.equal(
    types.map((t) => [t, id]),
  );
  await waitUntil('the deliveries', () => r.received.length >= types.length, 30_000);
  expect(bodies(r).map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
  for (const got of r.received)
    expect(verify(secret, got.body, String(got.headers['bookstage-signature']))).to.equal(true);
  expect(await docs('audit_events', { staged_operation_id: id, to: 'staged' }), 'staged audit events').to.have.length(
    1,
  );
}

describe('faults: a staging job killed between writing the operation and its event, and never retried', function () {
  this.timeout(180_000);
  let r: Receiver | null = null;
  afterEach(async () => {
    await r?.close();
    r = null;
    // Back to the stack's own worker settings.
    const s = await stack();
    await s.stopWorker();
    await s.startWorker();
  });

  it('the recovery sweep writes the one staged event, which the feed shows and the webhook delivers, signed', async () => {
    const s = await stack();
    r = await receiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url);
    const id = await stagedWithoutEvent(sc);
    await s.startWorker({ RECOVERY_SWEEP_MS: '500' });
    await expectDelivered(r, ep.secret, id, ['staged_operation.staged'], ep.token);
    // Later sweeps find it recorded: still one.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await feed(ep.token)).map((e) => e.type)).to.deep.equal(['staged_operation.staged']);
  });

  it('approving it first writes its staged event before the approved one: exactly one each, in order', async () => {
    const s = await stack();
    r = await receiver();
    const sc = await reconcileScenario();
    const ep = await endpoint(sc.books.orgId, r.url);
    const id = await stagedWithoutEvent(sc);
    // The approval meets the missing event (unless the sweep wrote it a moment before: either way, one).
    await s.startWorker();
    const approved = await approve(sc.who.bob, id);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.data.status).to.equal('approved');
    await expectDelivered(r, ep.secret, id, ['staged_operation.staged', 'staged_operation.approved'], ep.token);
  });
});
