// A staging with many keys takes its subject key alone first (shared/storage/plan-locks.ts,
// docs/design/performance.md "Store levers"): a scope already held is refused
// by a one-document insert, not by sending every key, and the outcome of
// every take is the one a single insert of all keys gives — the holder's
// locks answered, nothing of the refused take left, a retried take that
// holds all its keys acquired.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { PlanLocks } from '../../shared/domain/pending-gate.js';
import { takeLocks, lockKeys, SUBJECT_KEY_FIRST_ABOVE } from '../../shared/storage/plan-locks.js';
import { stack } from '../helpers/stack.js';

const tag = () => randomBytes(5).toString('hex');

/** The locks of 1 + 2n keys: the subject key, n entries, n transactions. */
const locksOf = (scope: string, n: number, prefix = 'x'): PlanLocks => ({
  subject_key: scope,
  entry_ids: Array.from({ length: n }, (_, i) => `le_${prefix}_${i}`),
  transaction_ids: Array.from({ length: n }, (_, i) => `bt_${prefix}_${i}`),
});

describe('store: taking the locks of a big scope', function () {
  this.timeout(120_000);
  let client: MongoClient;
  let db: Db;
  /** The documents of every insert into scope_locks sent through `db`, per command. */
  let inserts: number[] = [];

  before(async () => {
    const s = await stack();
    client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
    await client.connect();
    db = client.db(s.db.databaseName);
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'insert' && e.command.insert === 'scope_locks')
        inserts.push((e.command.documents as unknown[]).length);
    });
  });

  after(async () => {
    await client?.close();
  });

  it(`a take of more than ${SUBJECT_KEY_FIRST_ABOVE} keys whose scope is held sends its subject key alone, is refused, leaves none of its locks and answers the holder's`, async () => {
    const orgId = `org_locks_${tag()}`;
    const wanted = locksOf('repair:ba_1:cp_1', 150);
    inserts = [];
    expect(await takeLocks(db, orgId, wanted, 'stg_first', 'h1')).to.deep.equal({ acquired: true });
    expect(inserts, 'the first take: the subject key, then the other 300 keys').to.deep.equal([1, 300]);

    inserts = [];
    const second = await takeLocks(db, orgId, wanted, 'stg_second', 'h1');
    expect(second.acquired).to.equal(false);
    expect(inserts, 'the second take: one document sent').to.deep.equal([1]);
    const held = second.acquired ? [] : second.locks;
    expect(held.map((l) => l.key).sort()).to.deep.equal(lockKeys(orgId, wanted).sort());
    expect(new Set(held.map((l) => l.staged_operation_id))).to.deep.equal(new Set(['stg_first']));
    expect(
      await db.collection('scope_locks').countDocuments({ org_id: orgId, staged_operation_id: 'stg_second' }),
    ).to.equal(0);

    // The holder's own job retried: all its keys are its own, so it holds them.
    expect(await takeLocks(db, orgId, wanted, 'stg_first', 'h1')).to.deep.equal({ acquired: true });
  });

  it('a big take whose scope is free but one of whose entries is held by another scope is refused and gives back the locks it took, its subject key too', async () => {
    const orgId = `org_locks_${tag()}`;
    const other = locksOf('repair:ba_1:cp_other', 1, 'x');
    expect((await takeLocks(db, orgId, other, 'stg_other', 'h0')).acquired).to.equal(true);
    // Holds le_x_0, which the big take below also needs.
    const wanted = locksOf('repair:ba_1:cp_big', 150, 'x');
    const refused = await takeLocks(db, orgId, wanted, 'stg_big', 'h1');
    expect(refused.acquired).to.equal(false);
    expect(
      await db.collection('scope_locks').countDocuments({ org_id: orgId, staged_operation_id: 'stg_big' }),
    ).to.equal(0);
    // The locks read before its own were given back: the other holder's, and its own (liveHoldersAmong leaves those out).
    const holders = new Set(
      (refused.acquired ? [] : refused.locks).map((l) => l.staged_operation_id).filter((id) => id !== 'stg_big'),
    );
    expect(holders).to.deep.equal(new Set(['stg_other']));
  });

  it(`a take of at most ${SUBJECT_KEY_FIRST_ABOVE} keys is one insert`, async () => {
    const orgId = `org_locks_${tag()}`;
    inserts = [];
    expect(await takeLocks(db, orgId, locksOf('reverse:le_1', 10), 'stg_small', 'h')).to.deep.equal({
      acquired: true,
    });
    expect(inserts).to.deep.equal([21]);
  });
});
