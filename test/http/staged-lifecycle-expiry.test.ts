import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Books } from '../helpers/books.js';
import type { ReversalData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, locksOf, show } from '../helpers/staged.js';
import { createRedis } from '../../shared/queue/connection.js';
import { MAINTENANCE_QUEUE } from '../../worker/maintenance.js';

describe('staged operations: expiry by the maintenance job', () => {
  it('expires an operation whose expires_at is past after one sweep, releases its locks, and removes locks whose operation does not exist', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(5_000);
    books.link(books.txn(account, 5_000), entry, 5_000);
    await s.load(books.file);
    const who = await actors(books.orgId);
    const staged = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token: who.alice,
      body: {},
    });
    expect(staged.status).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    const expiresAt = staged.body.data.expires_at;
    expect(Date.parse(expiresAt) - Date.parse((await show(who.alice, id)).body.data.created_at)).to.equal(
      7 * 24 * 3600 * 1000,
    );

    const ops = s.db.collection('staged_operations');
    await ops.updateOne({ _id: id } as never, { $set: { expires_at: '2026-01-01T00:00:00.000Z' } });
    const orphan = `${books.orgId}:test-orphan`;
    await s.db.collection('scope_locks').insertOne({
      _id: `${orphan}#stg_gone`,
      key: orphan,
      org_id: books.orgId,
      staged_operation_id: 'stg_gone',
      scope_key: 'test-orphan',
      plan_hash: 'x',
      created_at: '2026-01-01T00:00:00.000Z',
    } as never);

    // One run of the repeatable job, on demand.
    const connection = createRedis(s.config.redisUrl);
    const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix: s.config.queuePrefix });
    try {
      await queue.add('sweep-expired', {});
      const until = Date.now() + 20_000;
      // The job expires operations first, then sweeps locks: wait for the job to be done with both.
      const swept = async () =>
        (await show(who.alice, id)).body.data.status === 'expired' &&
        (await s.db.collection('scope_locks').countDocuments({ key: orphan })) === 0;
      while (!(await swept()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await queue.close();
      connection.disconnect();
    }
    const op = (await show(who.alice, id)).body.data;
    expect(op.status).to.equal('expired');
    expect(op.history.at(-1)).to.include({ from: 'staged', to: 'expired', actor: 'system' });
    expect(await locksOf(id)).to.equal(0);
    expect(await s.db.collection('scope_locks').countDocuments({ key: orphan })).to.equal(0);
    const again = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token: who.alice,
      body: {},
    });
    expect(again.status).to.equal(201);
    const approve = await call('POST', `/api/v1/cli/staged-operations/${id}/approve`, { token: who.bob, body: {} });
    expect(approve.body.error).to.deep.include({
      code: 'invalid_transition',
      details: { staged_operation_id: id, status: 'expired', action: 'approve' },
    });
  });

  it('expires an operation met past its expiry by approve, before the sweep runs', async () => {
    const s = await stack();
    const books = new Books();
    const entry = books.invoice(5_000);
    await s.load(books.file);
    const who = await actors(books.orgId);
    const id = (
      await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
        token: who.alice,
        body: {},
      })
    ).body.data.staged_operation_id;
    await s.db
      .collection('staged_operations')
      .updateOne({ _id: id } as never, { $set: { expires_at: '2026-01-01T00:00:00.000Z' } });
    const res = await call('POST', `/api/v1/cli/staged-operations/${id}/approve`, { token: who.bob, body: {} });
    expect(res.status).to.equal(409);
    expect(res.body.error.details).to.deep.equal({ staged_operation_id: id, status: 'expired', action: 'approve' });
    expect(await locksOf(id)).to.equal(0);
  });
});
