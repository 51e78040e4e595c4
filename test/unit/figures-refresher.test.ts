// The worker's background refresh of kept figures (worker/figures-refresher.ts):
// one round per organisation at a time, one more for requests made during it,
// and `settled`, which a figure read waits for, ends with the round under way
// only, not with the rounds later requests add.
import { expect } from 'chai';
import type { Db } from 'mongodb';
import { pino } from 'pino';
import { FiguresRefresher } from '../../worker/figures-refresher.js';

/** A freshen whose rounds end when the test says, each recorded by organisation. */
function heldFreshen() {
  const rounds: Array<{ orgId: string; end: (changed: boolean) => void; fail: (err: Error) => void }> = [];
  const freshen = (_db: Db, orgId: string): Promise<boolean> =>
    new Promise((resolve, reject) => rounds.push({ orgId, end: resolve, fail: reject }));
  return { rounds, freshen };
}

/** Whether `p` has settled once every callback queued before now has run. */
async function isSettled(p: Promise<void>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('figures refresher: a figure read waits for the round under way', () => {
  const log = pino({ level: 'silent' });
  const db = {} as Db;

  it('settled ends with the round under way, and at once where none is', async () => {
    const { rounds, freshen } = heldFreshen();
    const refresher = new FiguresRefresher(db, freshen);
    expect(await isSettled(refresher.settled('org_a')), 'no round yet').to.equal(true);
    refresher.request('org_a', log);
    const waiting = refresher.settled('org_a');
    expect(await isSettled(waiting), 'while the round runs').to.equal(false);
    expect(await isSettled(refresher.settled('org_b')), 'another organisation').to.equal(true);
    rounds[0]!.end(true);
    expect(await isSettled(waiting), 'after the round').to.equal(true);
    expect(rounds.map((r) => r.orgId)).to.deep.equal(['org_a']);
  });

  it('a request during a round runs one more round after it; a read waiting on the first is not held by the second', async () => {
    const { rounds, freshen } = heldFreshen();
    const refresher = new FiguresRefresher(db, freshen);
    refresher.request('org_a', log);
    const first = refresher.settled('org_a');
    refresher.request('org_a', log);
    refresher.request('org_a', log);
    expect(rounds).to.have.length(1);
    rounds[0]!.end(true);
    expect(await isSettled(first)).to.equal(true);
    // The two requests made during the first round are one more round.
    expect(rounds).to.have.length(2);
    const second = refresher.settled('org_a');
    expect(await isSettled(second)).to.equal(false);
    rounds[1]!.end(false);
    expect(await isSettled(second)).to.equal(true);
    await refresher.close();
    expect(rounds).to.have.length(2);
  });

  it('a round that fails settles too: the reader then computes the figures itself', async () => {
    const { rounds, freshen } = heldFreshen();
    const refresher = new FiguresRefresher(db, freshen);
    refresher.request('org_a', log);
    const waiting = refresher.settled('org_a');
    rounds[0]!.fail(new Error('store went away'));
    expect(await isSettled(waiting)).to.equal(true);
    await refresher.close();
    expect(await isSettled(refresher.settled('org_a'))).to.equal(true);
  });
});
