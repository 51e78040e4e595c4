// The atomic primitives of docs/operating/reliability.md "Atomic primitives", the
// store port's methods, raced against the real store (FerretDB 1.24 in the
// test stack, where a filtered update or delete is a read then a write by
// `_id`): each race runs ROUNDS times and must lose or double no write, on
// each adapter of the store port (docs/design/architecture.md "The store
// port"): the driver's, and on FerretDB 1.x with its PostgreSQL the
// accelerated one. Each is called as its users call it, through storeAdapter(db).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { JournalWrite } from '../../../shared/domain/apply-journal.js';
import { makeWrite } from '../../../shared/storage/apply-writes.js';
import { readSectionOfOrg, undoUpsert, upsertRecords, type BookRecord } from '../../../shared/storage/books-write.js';
import { collections } from '../../../shared/storage/collections.js';
import { decodeOperation, encodeOperation } from '../../../shared/storage/staged-operation-codec.js';
import {
  reserveVersions,
  IMPORT_RESERVATION_LAPSE_MS,
  newImportHolder,
  operationHolder,
} from '../../../shared/storage/version-reservations.js';
import { reserveKey, idempotencyRecordId } from '../../../shared/storage/idempotency-keys.js';
import { transitionClaimId } from '../../../shared/storage/audit-events.js';
import { acquireLocks, liveHolders, lockKeys, releaseLocks } from '../../../shared/storage/plan-locks.js';
import { sweepDeadLocks } from '../../../shared/storage/plan-lock-sweep.js';
import {
  readApplyJournal,
  recordApplyProgress,
  takeApplyLease,
  transitionStatus,
} from '../../../shared/storage/staged-operation-status.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { applyingOperation } from '../../helpers/applying-operation.js';
import { stack } from '../../helpers/stack.js';
import { handleForAdapter } from '../../helpers/ferretdb-adapter.js';
import { storeAdapter } from '../../../shared/storage/store-adapter.js';

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

for (const adapter of ['mongo', 'ferretdb'] as const) {
  describe(`atomic primitives on the real store (${adapter} adapter)`, function () {
    this.timeout(600_000);
    // A database of its own for the FerretDB adapter: the driver's pass uses the same ids in the stack's.
    const store = handleForAdapter(adapter, 'atomic');

    it('an apply write and an import replace guarded by the same version: exactly one is made, the other sees a conflict', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const outcomes = { apply: 0, import: 0 };
      await inLanes(ROUNDS, async (i) => {
        const id = `le_race_${i}`;
        await entryAt(db, orgId, id, 3, 'before');
        const write: JournalWrite = {
          action: 'update',
          collection: 'ledger_entries',
          id,
          version: 3,
          set: { memo: 'apply' },
          before: { memo: 'before' },
        };
        const stored = new Map([[id, { _id: id, org_id: orgId, memo: 'before', version: 3 }]]);
        const record: BookRecord = { id, memo: 'import' };
        const [applied, imported] = await Promise.all([
          makeWrite(db, orgId, write, operationHolder(`stg_${i}`)),
          upsertRecords(db, 'ledger_entries', orgId, [record], stored, newImportHolder()).then(
            () => true,
            () => false,
          ),
        ]);
        const doc = await db.collection('ledger_entries').findOne({ _id: id } as never);
        expect([applied === 'done', imported], `round ${i}: exactly one writer wins`).to.satisfy(
          ([a, b]: boolean[]) => a !== b,
        );
        expect(doc?.version, `round ${i}: one write, one version step`).to.equal(4);
        expect(doc?.memo, `round ${i}: the winner's write is the one stored`).to.equal(
          applied === 'done' ? 'apply' : 'import',
        );
        outcomes[applied === 'done' ? 'apply' : 'import'] += 1;
      });
      expect(outcomes.apply + outcomes.import).to.equal(ROUNDS);
    });

    it('two stagings taking one subject key: exactly one operation holds it', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      await inLanes(ROUNDS, async (i) => {
        const wanted = { subject_key: `reverse:le_${i}`, entry_ids: [`le_${i}`], transaction_ids: [] };
        const won = await Promise.all(
          ['a', 'b'].map((who) => acquireLocks(db, orgId, wanted, `stg_${who}_${i}`, 'hash')),
        );
        expect(won.filter(Boolean), `round ${i}`).to.have.length(1);
        const locks = await collections(db).planLocks.find({ org_id: orgId, scope_key: wanted.subject_key }).toArray();
        expect(new Set(locks.map((l) => l.staged_operation_id)).size, `round ${i}: one holder`).to.equal(1);
      });
    });

    it("a lock taken while the previous holder's locks are released and cleared is never deleted by them", async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const ops = collections(db).stagedOperations;
      await inLanes(ROUNDS, async (i) => {
        const wanted = { subject_key: `reverse:le_${i}`, entry_ids: [`le_${i}`], transaction_ids: [] };
        const [first, next] = [`stg_first_${i}`, `stg_next_${i}`];
        expect(await acquireLocks(db, orgId, wanted, first, 'hash')).to.equal(true);
        // The first operation reached a final state: its locks are dead; it releases them, and so may anyone who meets them.
        await ops.insertOne({
          _id: first,
          org_id: orgId,
          status: 'rejected',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        } as never);
        const keys = lockKeys(orgId, wanted);
        await Promise.all([
          releaseLocks(db, orgId, first),
          liveHolders(db, orgId, keys, new Date(), 'someone-else'),
          (async () => {
            const until = Date.now() + 30_000;
            while (!(await acquireLocks(db, orgId, wanted, next, 'hash'))) {
              if (Date.now() > until) throw new Error(`round ${i}: the next operation never got the scope`);
            }
          })(),
        ]);
        const locks = await collections(db).planLocks.find({ org_id: orgId, scope_key: wanted.subject_key }).toArray();
        expect(
          locks.map((l) => l.staged_operation_id).sort(),
          `round ${i}: the next operation holds every key`,
        ).to.deep.equal([next, next]);
      });
      // The sweep never removes a live holder's lock either.
      await sweepDeadLocks(db, new Date());
      expect(await collections(db).planLocks.countDocuments({ org_id: orgId })).to.equal(2 * ROUNDS);
    });

    it('an import undone restores the old content under a new, higher version; a record it inserted comes back above its last version', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      await entryAt(db, orgId, 'le_kept', 1, 'original');
      const stored = await readSectionOfOrg(db, 'ledger_entries', orgId);
      const records: BookRecord[] = [
        { id: 'le_kept', memo: 'half-written' },
        { id: 'le_new', memo: 'inserted' },
      ];
      const holder = newImportHolder();
      await upsertRecords(db, 'ledger_entries', orgId, records, stored, holder);
      const entries = db.collection('ledger_entries');
      expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'half-written', version: 2 });
      expect(await entries.findOne({ _id: 'le_new' } as never)).to.include({ memo: 'inserted', version: 1 });

      await undoUpsert(db, 'ledger_entries', orgId, records, stored, holder);
      expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'original', version: 3 });
      expect(await entries.findOne({ _id: 'le_new' } as never)).to.equal(null);

      // A re-import with other content: neither record is back at a version a plan staged against the half-written books saw.
      const again: BookRecord[] = [
        { id: 'le_kept', memo: 'other' },
        { id: 'le_new', memo: 'other' },
      ];
      await upsertRecords(
        db,
        'ledger_entries',
        orgId,
        again,
        await readSectionOfOrg(db, 'ledger_entries', orgId),
        newImportHolder(),
      );
      expect(await entries.findOne({ _id: 'le_kept' } as never)).to.include({ memo: 'other', version: 4 });
      expect(await entries.findOne({ _id: 'le_new' } as never)).to.include({ memo: 'other', version: 2 });
      const staleUpdate: JournalWrite = {
        action: 'update',
        collection: 'ledger_entries',
        id: 'le_new',
        version: 1,
        set: { memo: 'plan' },
        before: { memo: 'inserted' },
      };
      expect(await makeWrite(db, orgId, staleUpdate, operationHolder('stg_stale'))).to.equal('conflict');
    });

    it('the adapter under test serves the races', async function () {
      const db = await store(this);
      expect((await storeAdapter(db)).name).to.equal(adapter);
    });

    it('two imports meeting a lapsed import claim: exactly one takes it over', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const lapsedAt = new Date(Date.now() - IMPORT_RESERVATION_LAPSE_MS - 60_000).toISOString();
      await inLanes(ROUNDS, async (i) => {
        const id = `le_lapsed_${i}`;
        await collections(db).versionReservations.insertOne({
          _id: `${orgId}/ledger_entries/${id}@2`,
          org_id: orgId,
          record: `ledger_entries/${id}`,
          version: 2,
          holder: 'import:crashed',
          at: lapsedAt,
        });
        const holders = [newImportHolder(), newImportHolder()];
        const held = await Promise.all(
          holders.map((holder) => reserveVersions(db, orgId, 'ledger_entries', [{ id, version: 2 }], holder)),
        );
        const winners = holders.filter((_, k) => held[k]!.has(id));
        expect(winners, `round ${i}: one holder`).to.have.length(1);
        const claim = await collections(db).versionReservations.findOne({ _id: `${orgId}/ledger_entries/${id}@2` });
        expect(claim?.holder, `round ${i}: the stored claim is the winner's`).to.equal(winners[0]);
      });
    });

    it("two journals' runs reserving overlapping versions at once: each version goes to exactly one, the one its stored reservation names", async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      await inLanes(ROUNDS, async (i) => {
        // Three versions each; the middle one both want (one insert each: on FerretDB one SQL statement, all or none).
        const ids = [`bl_a_${i}`, `bl_both_${i}`, `bl_b_${i}`];
        const holders = [operationHolder(`stg_a_${i}`), operationHolder(`stg_b_${i}`)];
        const wanted = [ids.slice(0, 2), ids.slice(1)].map((list) => list.map((id) => ({ id, version: 3 })));
        const held = await Promise.all(holders.map((h, k) => reserveVersions(db, orgId, 'bank_links', wanted[k]!, h)));
        const both = ids[1]!;
        expect(
          holders.filter((_, k) => held[k]!.has(both)),
          `round ${i}: one holder of the shared version`,
        ).to.have.length(1);
        expect([held[0]!.has(ids[0]!), held[1]!.has(ids[2]!)], `round ${i}: the unshared ones held`).to.deep.equal([
          true,
          true,
        ]);
        const claim = await collections(db).versionReservations.findOne({ _id: `${orgId}/bank_links/${both}@3` });
        expect(claim?.holder, `round ${i}: the stored claim is the winner's`).to.equal(
          held[0]!.has(both) ? holders[0] : holders[1],
        );
      });
    });

    it('two transitions out of one status: exactly one wins, with one claim and one history item', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const ops = collections(db).stagedOperations;
      await inLanes(ROUNDS, async (i) => {
        const id = `stg_end_${i}`;
        await ops.insertOne(
          encodeOperation(applyingOperation(id, orgId, 'job-a', new Date(Date.now() + 60_000).toISOString())),
        );
        const at = new Date().toISOString();
        const outcomes = await Promise.all(
          (['applied', 'failed'] as const).map((to) =>
            transitionStatus(db, orgId, id, 'applying', {
              at,
              actor: 'bob',
              from: 'applying',
              to,
              note: null,
              request_id: `req_${to}_${i}`,
              claim_id: `claim_${to}_${i}`,
            }),
          ),
        );
        const won = outcomes.map((o) => o.won);
        expect(won.filter(Boolean), `round ${i}: one winner`).to.have.length(1);
        const winner = won[0] ? 'applied' : 'failed';
        const loser = outcomes[won[0] ? 1 : 0]!;
        expect(!loser.won && loser.claim.claim_id, `round ${i}: the loser is told the winner's claim`).to.equal(
          `claim_${winner}_${i}`,
        );
        const op = await ops.findOne({ _id: id });
        expect(op?.status, `round ${i}`).to.equal(winner);
        expect(
          op?.history.map((h) => h.to),
          `round ${i}: one history item`,
        ).to.deep.equal([winner]);
        expect(
          await collections(db).auditEvents.countDocuments({ _id: transitionClaimId(id, 'applying') }),
          `round ${i}: one claim`,
        ).to.equal(1);
      });
    });

    it('two requests meeting an expired idempotency record: exactly one claims the key, the other is answered its job', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const keys = collections(db).idempotencyKeys;
      await inLanes(ROUNDS, async (i) => {
        const _id = idempotencyRecordId(orgId, 'alice', `key_${i}`);
        const created = new Date(Date.now() - 2 * 24 * 3_600_000).toISOString();
        const record = {
          _id,
          org_id: orgId,
          actor: 'alice',
          request_hash: 'h',
          operation: 'reconcile',
          request_id: `req_${i}`,
          created_at: created,
        };
        await keys.insertOne({ ...record, job_id: `job_old_${i}`, expires_at: created });
        const now = new Date();
        const answers = await Promise.all(
          ['a', 'b'].map((who) =>
            reserveKey(db, { ...record, request_id: `req_${who}_${i}`, created_at: now.toISOString() }, now),
          ),
        );
        const reserved = answers.filter((a) => a.reserved);
        expect(reserved, `round ${i}: one reservation of the key`).to.have.length(1);
        const other = answers.find((a) => !a.reserved);
        const stored = await keys.findOne({ _id });
        expect(stored?.job_id, `round ${i}: the stored record is the claimer's`).to.equal(
          reserved[0]!.reserved && reserved[0]!.record.job_id,
        );
        expect(
          other && !other.reserved && other.existing.job_id,
          `round ${i}: the other is answered that job`,
        ).to.equal(stored?.job_id);
      });
    });

    it("one job's heartbeat and journal steps recorded at once build one chain, in call order, reading the operation once", async function () {
      const s = await stack();
      const orgId = `org_${tag()}`;
      const id = `stg_chain_${tag()}`;
      const op = applyingOperation(id, orgId, 'job-a', new Date(Date.now() + 60_000).toISOString());
      await collections(s.db).stagedOperations.insertOne(encodeOperation(op));
      const client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
      await client.connect();
      try {
        let operationReads = 0;
        client.on('commandStarted', (e: CommandStartedEvent) => {
          if (e.commandName === 'find' && e.command.find === 'staged_operations') operationReads += 1;
        });
        const db = client.db(s.db.databaseName);
        // A heartbeat ({}) between every two steps, all started at once, as the journal runner's timer and loop can.
        const recorded = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            recordApplyProgress(db, orgId, id, 'job-a', i % 2 === 0 ? { done: i / 2 + 1 } : {}, 10_000),
          ),
        );
        expect(recorded).to.deep.equal(Array.from({ length: 12 }, () => true));
        const steps = await collections(s.db)
          .applyLeases.find({ org_id: orgId, staged_operation_id: id })
          .sort({ seq: 1 })
          .toArray();
        expect(steps.map((step) => [step.seq, step.done])).to.deep.equal(
          Array.from({ length: 12 }, (_, i) => [i + 1, Math.floor(i / 2) + 1]),
        );
        expect(operationReads, 'the operation is read for step 0 only').to.equal(1);
        expect((await readApplyJournal(s.db, op)).done).to.equal(6);
      } finally {
        await client.close();
      }
    });

    it('lease renewals beside the transition that ends an apply never undo it; a lapsed lease goes to exactly one of two takers', async function () {
      const db = await store(this);
      const orgId = `org_${tag()}`;
      const ops = collections(db).stagedOperations;
      const applying = (id: string, leaseUntil: string): StagedOperationDoc =>
        applyingOperation(id, orgId, 'job-a', leaseUntil);
      await inLanes(ROUNDS, async (i) => {
        const id = `stg_lease_${i}`;
        await ops.insertOne(encodeOperation(applying(id, new Date(Date.now() + 60_000).toISOString())));
        const at = new Date().toISOString();
        await Promise.all([
          ...Array.from({ length: 3 }, () => recordApplyProgress(db, orgId, id, 'job-a', { done: 0 }, 10_000)),
          transitionStatus(
            db,
            orgId,
            id,
            'applying',
            {
              at,
              actor: 'bob',
              from: 'applying',
              to: 'applied',
              note: null,
              request_id: `req_${i}`,
              claim_id: `claim_${i}`,
            },
            { result: { status: 'applied', at, by: 'bob' } },
          ),
          ...Array.from({ length: 3 }, () => recordApplyProgress(db, orgId, id, 'job-a', {}, 10_000)),
        ]);
        const op = await ops.findOne({ _id: id });
        expect(op?.status, `round ${i}: the transition stays`).to.equal('applied');
        expect(op?.history, `round ${i}: one history item`).to.have.length(1);

        const lapsedId = `stg_lapsed_${i}`;
        // Lapsed by the takers' clock, an hour ahead, not by the real one: the shared stack's worker runs the recovery
        // sweep against this database, which takes every lease lapsed by the real clock (and took this one once, leaving 0 takers).
        const takersNow = new Date(Date.now() + 3_600_000);
        await ops.insertOne(encodeOperation(applying(lapsedId, new Date(takersNow.getTime() - 1_000).toISOString())));
        const taken = await Promise.all(
          ['job-b', 'job-c'].map((job) => takeApplyLease(db, orgId, lapsedId, job, takersNow, 10_000)),
        );
        expect(taken.filter(Boolean), `round ${i}: one taker`).to.have.length(1);
        const winner = taken[0] ? 'job-b' : 'job-c';
        const loser = taken[0] ? 'job-c' : 'job-b';
        // The old owner and the loser can no longer record progress; the winner can, and its progress is what a reader sees.
        expect(
          await recordApplyProgress(db, orgId, lapsedId, 'job-a', { done: 5 }, 10_000),
          `round ${i}: old owner`,
        ).to.equal(false);
        expect(
          await recordApplyProgress(db, orgId, lapsedId, loser, { done: 5 }, 10_000),
          `round ${i}: loser`,
        ).to.equal(false);
        expect(
          await recordApplyProgress(db, orgId, lapsedId, winner, { done: 1 }, 10_000),
          `round ${i}: winner`,
        ).to.equal(true);
        const journal = await readApplyJournal(db, decodeOperation((await ops.findOne({ _id: lapsedId }))!));
        expect({ owner: journal.owner, done: journal.done }, `round ${i}`).to.deep.equal({ owner: winner, done: 1 });
      });
    });
  });
}
