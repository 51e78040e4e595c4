// The crash matrix (docs/operating/reliability.md "Crashes"): the worker is SIGKILLed
// at each step of staging and of apply by the test-only fault switch
// (worker/test-faults.ts); a clean worker then takes the stalled job over.
// Every request resolves exactly once, the books end as a clean run leaves
// them, and no plan lock is left behind.
import { expect } from 'chai';
import type { PendingData, ReconcileData, StagedOperationData } from '../helpers/answers.js';
import { stack } from '../helpers/stack.js';
import { apply, approve, docs, show } from '../helpers/staged.js';
import {
  booksSnapshot,
  cleanRun,
  crashAt,
  locksByOperation,
  reconcileScenario,
  settled,
  SOAK,
  stageCall,
  type Scenario,
} from './fault-scenario.js';
import { call } from '../helpers/http.js';

const STAGING_POINTS: Array<[string, string]> = [
  ['stage:crash-after-read', 'after reading the books'],
  ['stage:crash-after-locks', 'after taking the plan locks'],
  ['stage:crash-after-write', 'after writing the operation'],
  ['stage:crash-before-complete', 'after storing the answer, before completing the job'],
];

/** The reconciliation's journal has four writes; `npm test` kills at a sample, `npm run soak` at every one. */
const APPLY_POINTS: Array<[string, string]> = [
  ['apply:crash-after-journal', 'after storing the journal, before any write'],
  ...[1, 2, 3, 4]
    .filter((n) => SOAK || n === 2)
    .map((n): [string, string] => [
      `apply:crash-after-write:${n}`,
      `after journal write ${n}, before its progress is recorded`,
    ]),
  ...[1, 2, 3, 4]
    .filter((n) => SOAK || n === 3)
    .map((n): [string, string] => [
      `apply:crash-after-progress:${n}`,
      `after the progress of journal write ${n} is recorded`,
    ]),
  ['apply:crash-before-finish', 'after the last write, before the end state is recorded'],
];

const ROUNDS = SOAK ? 3 : 1;

/** The org holds no lock but, while it is pending, the operation's own. */
async function onlyLocksOf(sc: Scenario, id: string | null): Promise<void> {
  const s = await stack();
  const locks = await locksByOperation(s.db, sc.books.orgId);
  expect(Object.keys(locks), 'plan locks left behind').to.deep.equal(id === null ? [] : [id]);
}

async function approveApplyAndCompare(sc: Scenario, id: string): Promise<void> {
  const s = await stack();
  expect((await approve(sc.who.bob, id)).status).to.equal(200);
  const applied = await apply(sc.who.bob, id, { prefer: 'wait=30' });
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  const clean = await cleanRun();
  const after = await booksSnapshot(s.db, sc, id);
  expect((after.bank_transactions as Array<{ status: string }>).map((t) => t.status)).to.deep.equal([
    'reconciled',
    'reconciled',
    'reconciled',
  ]);
  expect(after).to.deep.equal(await booksSnapshot(s.db, clean.sc, clean.id));
  await onlyLocksOf(sc, null);
}

describe('faults: a worker killed at any step of staging resolves the request exactly once', function () {
  this.timeout(120_000);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [fault, step] of STAGING_POINTS) {
      it(`killed ${step} (${fault}${ROUNDS > 1 ? `, round ${round}` : ''}): one operation, one answer by poll and by replay, its locks only, books untouched; applied, the books equal a clean run`, async () => {
        const s = await stack();
        const sc = await reconcileScenario();
        const key = `crash-${sc.books.uid}`;
        const before = await booksSnapshot(s.db, sc, null);
        let jobPath = '';
        await crashAt(fault, async () => {
          const pending = await stageCall(sc, key);
          expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
          jobPath = pending.headers.get('location')!;
        });
        const polled = await settled<ReconcileData>(jobPath, sc.who.alice);
        expect(polled.status, JSON.stringify(polled.body)).to.equal(201);
        const id = polled.body.data.staged_operation_id;
        const replay = await stageCall(sc, key, 'wait=5');
        expect(replay.status).to.equal(201);
        expect(replay.headers.get('idempotent-replayed')).to.equal('true');
        expect(JSON.stringify(replay.body)).to.equal(JSON.stringify(polled.body));

        expect(await docs('staged_operations', { org_id: sc.books.orgId }), 'operations of the org').to.have.length(1);
        expect(
          await docs('audit_events', { staged_operation_id: id, to: 'staged' }),
          'staged audit events',
        ).to.have.length(1);
        expect(await docs('job_results', { org_id: sc.books.orgId }), 'stored answers').to.have.length(1);
        await onlyLocksOf(sc, id);
        expect(await booksSnapshot(s.db, sc, null), 'staging changed the books').to.deep.equal(before);
        await approveApplyAndCompare(sc, id);
      });
    }
  }
});

describe('faults: a worker killed at any step of an apply finishes it exactly once', function () {
  this.timeout(120_000);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const [fault, step] of APPLY_POINTS) {
      it(`killed ${step} (${fault}${ROUNDS > 1 ? `, round ${round}` : ''}): applied once, the books equal a clean run, no lock left`, async () => {
        const s = await stack();
        const sc = await reconcileScenario();
        const staged = await stageCall(sc, `stage-${sc.books.uid}`, 'wait=30');
        expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
        const id = (staged.body.data as ReconcileData).staged_operation_id;
        expect((await approve(sc.who.bob, id)).status).to.equal(200);
        let jobPath = '';
        await crashAt(fault, async () => {
          const pending = await call<PendingData>('POST', `/api/v1/cli/staged-operations/${id}/apply`, {
            token: sc.who.bob,
            headers: { prefer: 'wait=0', 'idempotency-key': `apply-${id}` },
          });
          expect(pending.status, JSON.stringify(pending.body)).to.equal(202);
          jobPath = pending.headers.get('location')!;
        });
        const polled = await settled<StagedOperationData>(jobPath, sc.who.bob);
        expect(polled.status, JSON.stringify(polled.body)).to.equal(200);
        expect(polled.body.data.status).to.equal('applied');
        const again = await apply(sc.who.bob, id, { prefer: 'wait=30' });
        expect(again.status).to.equal(200);
        expect(again.body.data.status).to.equal('applied');

        const op = (await show(sc.who.bob, id)).body.data;
        expect(op.history.map((h: { to: string }) => h.to)).to.deep.equal([
          'staged',
          'approved',
          'applying',
          'applied',
        ]);
        expect(
          await docs('audit_events', { staged_operation_id: id, to: 'applied' }),
          'applied audit events',
        ).to.have.length(1);
        const clean = await cleanRun();
        expect(await booksSnapshot(s.db, sc, id)).to.deep.equal(await booksSnapshot(s.db, clean.sc, clean.id));
        await onlyLocksOf(sc, null);
      });
    }
  }
});
