// The recovery sweep's reads in SQL (worker/operation/recovery-sweep.ts,
// docs/operating/reliability.md "Recovery bounds") answer what the driver
// answers: every organisation's operations in a status, with the fields the
// sweep reads, and audit events (staged events, transition claims) by `_id`,
// present or not, whole or cut to `_id`. The fault tests
// (test/faults/staged-event-crash.test.ts, apply-recovery.test.ts) run the
// sweep itself through a worker that has the pool.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import { stagedEventId, transitionClaimId } from '../../../shared/storage/audit-events.js';
import { closeStoreAdapter } from '../../../shared/storage/store-adapter.js';
import { auditEventsById, operationsIn } from '../../../worker/operation/recovery-sweep.js';
import { ferretdbHandle, ferretdbStack, sqlStats } from '../../helpers/ferretdb-adapter.js';

// why no `applying`: the shared stack's worker sweeps the same database, and would try to resume it.
const STATUSES = ['staged', 'approved', 'applied', 'rejected'] as const;
// why in 2099: that sweep (and the expiry sweep) must take none of these made-up documents as due.
const LATER = '2099-01-01T00:00:00.000Z';

/** Documents with keys in one order, so two paths compare whatever order each returned keys in. */
const canonical = (docs: readonly Document[]): string[] =>
  docs.map((d) => JSON.stringify(Object.fromEntries(Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1))))).sort();

describe("recovery sweep: its reads in SQL equal the driver's", function () {
  this.timeout(120_000);
  const uid = randomBytes(3).toString('hex');
  let db: Db;
  let sql: Db;
  const opIds: string[] = [];

  before(async function () {
    const { s, postgresUrl } = await ferretdbStack(this, 'the sweep reads through the driver there');
    db = s.db;
    sql = await ferretdbHandle(db, postgresUrl);
    // Two organisations, every status, some operations with their staged event or a claim, some without.
    const ops: Document[] = [];
    const events: Document[] = [];
    for (const org of [`org_${uid}_a`, `org_${uid}_b`]) {
      for (let i = 0; i < 12; i += 1) {
        const status = STATUSES[i % STATUSES.length]!;
        const id = `so_${uid}_${org.slice(-1)}${String(i).padStart(2, '0')}`;
        opIds.push(id);
        ops.push({
          _id: id,
          org_id: org,
          status,
          kind: 'ledger_reversal',
          created_at: `2099-01-0${1 + (i % 3)}T10:00:0${i % 10}.000Z`,
          expires_at: LATER,
        });
        if (i % 2 === 0)
          events.push({
            _id: stagedEventId(id),
            org_id: org,
            staged_operation_id: id,
            to: 'staged',
            at: LATER,
            amount: i * 101,
          });
        if (i % 3 === 0)
          events.push({
            _id: transitionClaimId(id, status),
            org_id: org,
            staged_operation_id: id,
            at: LATER,
            claimed_at: LATER,
            claim: { from: status },
          });
      }
    }
    await db.collection('staged_operations').insertMany(ops);
    await db.collection('audit_events').insertMany(events);
  });

  after(async () => {
    await closeStoreAdapter(sql);
    if (db) {
      await db.collection('staged_operations').deleteMany({ _id: { $in: opIds } } as Document);
      await db.collection('audit_events').deleteMany({ org_id: { $in: [`org_${uid}_a`, `org_${uid}_b`] } });
    }
  });

  it("lists every organisation's operations in a status with the fields the sweep reads, as the driver does", async () => {
    for (const status of STATUSES) {
      for (const fields of [['_id'], ['_id', 'created_at']]) {
        const ours = (docs: Document[]): Document[] => docs.filter((d) => opIds.includes(String(d._id)));
        const served = sqlStats(sql).served;
        const viaSql = ours(await operationsIn(sql, status, fields));
        expect(sqlStats(sql).served, 'answered in SQL').to.be.above(served);
        const viaDriver = ours(await operationsIn(db, status, fields));
        expect(viaDriver.length, `${status}: some operations`).to.be.above(0);
        expect(canonical(viaSql), `${status} ${fields.join(',')}`).to.deep.equal(canonical(viaDriver));
      }
    }
  });

  it('reads staged events and claims by _id, missing ones left out, whole or cut to _id, as the driver does', async () => {
    const ids = opIds.flatMap((id) => [stagedEventId(id), ...STATUSES.map((s) => transitionClaimId(id, s))]);
    for (const fields of [undefined, ['_id']]) {
      const served = sqlStats(sql).served;
      const viaSql = await auditEventsById(sql, ids, fields);
      expect(sqlStats(sql).served, 'answered in SQL').to.be.above(served);
      const viaDriver = await auditEventsById(db, ids, fields);
      expect(viaDriver.length, 'some events found').to.equal(2 * (6 + 4));
      expect(canonical(viaSql)).to.deep.equal(canonical(viaDriver));
    }
  });
});
