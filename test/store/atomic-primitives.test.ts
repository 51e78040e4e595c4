// The atomic primitives of docs/reliability.md "Atomic primitives", raced
// against the real store (FerretDB 1.24 in the test stack, where a filtered
// update or delete is a read then a write by `_id`): each race runs ROUNDS
// times and must lose or double no write.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import { makeWrite } from '../../shared/storage/apply-writes.js';
import { readSectionOfOrg, undoUpsert, upsertRecords, type BookRecord } from '../../shared/storage/books-write.js';
import { collections } from '../../shared/storage/collections.js';
import { newImportHolder, operationHolder } from '../../shared/storage/record-claims.js';
import { acquireLocks, liveHolders, lockKeys, releaseLocks } from '../../shared/storage/scope-locks.js';
import { sweepDeadLocks } from '../../shared/storage/scope-lock-sweep.js';
import { stack } from '../helpers/stack.js';

const ROUNDS = 200;
/** Rounds run this many at a time, each on records and keys of its own. */
const LANES = 10;

const tag = () => randomBytes(5).toString('hex');

async function inLanes(rounds: number, run: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < rounds; i += LANES) {
    await Promise.all(Array.from({ length: Math.min(LANES, rounds - i) }, (_, k) => run(i + k)));
  }
}

async function entryAt(db: Db, orgId: string, id: string, version: number, memo: string): Promise<void> {
  await db.collection('ledger_entries').insertOne({ _id: id, org_id: orgId, memo, version } as never);
}

describe('atomic primitives on the real store', function () {
  this.timeout(600_000);

  it('an apply write and an import replace guarded by the same version: exactly one is made, the other sees a conflict', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const outcomes = { apply: 0, import: 0 };
    await inLanes(ROUNDS, async (i) => {
      const id = `le_race_${i}`;
      await entryAt(db, orgId, id, 3, 'before');
      const write: JournalWrite = { action: 'update', collection: 'ledger_entries', id, version: 3, set: { memo: 'apply' }, before: { memo: 'before' } };
      const stored = new Map([[id, { _id: id, org_id: orgId, memo: 'before', version: 3 }]]);
      const record: BookRecord = { id, memo: 'import' };
      const [applied, imported] = await Promise.all([
        makeWrite(db, orgId, write, operationHolder(`stg_${i}`)),
        upsertRecords(db, 'ledger_entries', orgId, [record], stored, newImportHolder()).then(() => true, () => false),
      ]);
      const doc = await db.collection('ledger_entries').findOne({ _id: id } as never);
      expect([applied === 'done', imported], `round ${i}: exactly one writer wins`).to.satisfy(([a, b]: boolean[]) => a !== b);
      expect(doc?.version, `round ${i}: one write, one version step`).to.equal(4);
      expect(doc?.memo, `round ${i}: the winner's write is the one stored`).to.equal(applied === 'done' ? 'apply' : 'import');
      outcomes[applied === 'done' ? 'apply' : 'import'] += 1;
    });
    expect(outcomes.apply + outcomes.import).to.equal(ROUNDS);
  });

  it('two claims of one scope key: exactly one operation holds it', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    await inLanes(ROUNDS, async (i) => {
      const claim = { scope_key: `reverse:le_${i}`, entry_ids: [`le_${i}`], transaction_ids: [] };
      const won = await Promise.all(['a', 'b'].map((who) => acquireLocks(db, orgId, claim, `stg_${who}_${i}`, 'hash')));
      expect(won.filter(Boolean), `round ${i}`).to.have.length(1);
      const locks = await collections(db).scopeLocks.find({ org_id: orgId, scope_key: claim.scope_key }).toArray();
      expect(new Set(locks.map((l) => l.staged_operation_id)).size, `round ${i}: one holder`).to.equal(1);
    });
  });

  it('a lock taken while the previous holder\'s locks are released and cleared is never deleted by them', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const ops = collections(db).stagedOperations;
    await inLanes(ROUNDS, async (i) => {
      const claim = { scope_key: `reverse:le_${i}`, entry_ids: [`le_${i}`], transaction_ids: [] };
      const [first, next] = [`stg_first_${i}`, `stg_next_${i}`];
      expect(await acquireLocks(db, orgId, claim, first, 'hash')).to.equal(true);
      // The first operation reached a final state: its locks are dead; it releases them, and so may anyone who meets them.
      await ops.insertOne({ _id: first, org_id: orgId, status: 'rejected', expires_at: new Date(Date.now() + 3_600_000).toISOString() } as never);
      const keys = lockKeys(orgId, claim);
      await Promise.all([
        releaseLocks(db, orgId, first),
        liveHolders(db, orgId, keys, new Date(), 'someone-else'),
        (async () => {
          const until = Date.now() + 30_000;
          while (!(await acquireLocks(db, orgId, claim, next, 'hash'))) {
            if (Date.now() > until) throw new Error(`round ${i}: the next operation never got the scope`);
          }
        })(),
      ]);
      const locks = await collections(db).scopeLocks.find({ org_id: orgId, scope_key: claim.scope_key }).toArray();
      expect(locks.map((l) => l.staged_operation_id).sort(), `round ${i}: the next operation holds every key`).to.deep.equal([next, next]);
    });
    // The sweep never removes a live holder's lock either.
    await sweepDeadLocks(db, new Date());
    expect(await collections(db).scopeLocks.countDocuments({ org_id: orgId })).to.equal(2 * ROUNDS);
  });

  it('an import undone restores the old content under a new, higher version; a record it inserted comes back above its last version', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    await entryAt(db, orgId, 'le_kept', 1, 'original');
    const stored = await readSectionOfOrg(db, 'ledger_entries', orgId);
    const records: BookRecord[] = [{ id: 'le_kept', memo: 'half-written' }, { id: 'le_new', memo: 'inserted' }];
    const holder = newImportHolder();
    await upsertRecords(db, 'ledger_entries', orgId, records, stored, holder);
    const entries = db.collection('ledger_entries');
    expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'half-written', version: 2 });
    expect(await entries.findOne({ _id: 'le_new' } as never)).to.include({ memo: 'inserted', version: 1 });

    await undoUpsert(db, 'ledger_entries', orgId, records, stored, holder);
    expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'original', version: 3 });
    expect(await entries.findOne({ _id: 'le_new' } as never)).to.equal(null);

    // A re-import with other content: neither record is back at a version a plan staged against the half-written books saw.
    const again: BookRecord[] = [{ id: 'le_kept', memo: 'other' }, { id: 'le_new', memo: 'other' }];
    await upsertRecords(db, 'ledger_entries', orgId, again, await readSectionOfOrg(db, 'ledger_entries', orgId), newImportHolder());
    expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'other', version: 4 });
    expect(await entries.findOne({ _id: 'le_new' } as never)).to.include({ memo: 'other', version: 2 });
    const staleUpdate: JournalWrite = { action: 'update', collection: 'ledger_entries', id: 'le_new', version: 1, set: { memo: 'plan' }, before: { memo: 'inserted' } };
    expect(await makeWrite(db, orgId, staleUpdate, operationHolder('stg_stale'))).to.equal('conflict');
  });
});
