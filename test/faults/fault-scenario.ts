// What every fault test of test/faults needs: one reconciliation scenario
// (three bank transactions and the account: a journal of four writes), a way
// to see that the worker died where a fault switch told it to, and a snapshot
// of an organisation's books that two organisations built alike can be
// compared by ("the books equal a clean run").
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import type { PendingData, ReconcileData, StagedOperationData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, type Actors } from '../helpers/staged.js';

export const RECONCILE = '/api/v1/cli/bank-matches/reconcile/stage';
export const BOOK_COLLECTIONS = ['ledger_entries', 'bank_accounts', 'bank_transactions', 'bank_links'] as const;

export interface Scenario {
  books: Books;
  account: string;
  txns: string[];
  who: Actors;
  body: unknown;
}

/**
 * Loaded books of a new org: an account with one linked transaction per
 * amount (booked 2026-02-02, 02-03, …), and the body of a reconciliation of
 * all of them to their sum at 2026-02-28 (2,500 by default).
 */
export async function reconcileScenario(amounts: readonly number[] = [1_000, 2_000, -500]): Promise<Scenario> {
  const s = await stack();
  const books = new Books();
  const account = books.account({ opening_balance_minor: 0 });
  const txns = amounts.map((amount, i) => books.linkedTxn(account, amount, { booking_date: `2026-02-0${i + 2}` }).txn);
  await s.load(books.file);
  const who = await actors(books.orgId);
  const closing = amounts.reduce((sum, amount) => sum + amount, 0);
  const body = {
    bank_account_id: account,
    statement: { end_date: '2026-02-28', closing_balance_minor: closing, currency: 'EUR' },
    transaction_ids: txns,
  };
  return { books, account, txns, who, body };
}

export function stageCall(sc: Scenario, key: string, prefer = 'wait=0'): Promise<Answer<ReconcileData | PendingData>> {
  return call<ReconcileData | PendingData>('POST', RECONCILE, {
    token: sc.who.alice,
    body: sc.body,
    headers: { 'idempotency-key': key, prefer },
  });
}

/** Stage, approve and apply without faults: the clean run the faulty one is compared with. */
export async function cleanRun(): Promise<{ sc: Scenario; id: string }> {
  const sc = await reconcileScenario();
  const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(sc.who.bob, id)).status).to.equal(200);
  const applied = await apply(sc.who.bob, id, { prefer: 'wait=30' });
  expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  return { sc, id };
}

/**
 * The org's books with everything that differs between two orgs built alike
 * replaced: the builder's uid, the operation's id, and timestamps.
 */
export async function booksSnapshot(
  db: Db,
  sc: Scenario,
  operationId: string | null,
): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const name of BOOK_COLLECTIONS) {
    const rows = await db.collection(name).find({ org_id: sc.books.orgId }).toArray();
    let text = JSON.stringify(rows)
      .replaceAll(sc.books.uid, 'UID')
      .replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"TIME"');
    if (operationId) text = text.replaceAll(operationId, 'OPERATION');
    out[name] = (JSON.parse(text) as Array<{ _id: string }>).sort((a, b) => a._id.localeCompare(b._id));
  }
  return out;
}

/**
 * An approved reconciliation of two transactions whose apply meets a conflict
 * after its first write, so that it ends failed: a worker with the fault
 * switch apply:after-first-write makes the first write and pauses, it is
 * killed, the second transaction changes (a re-import) while no worker runs,
 * and a clean worker resumes the journal. The import lands before any worker
 * runs again: a new worker's recovery sweep resumes a lapsed apply at once
 * (docs/operating/reliability.md "Recovery bounds"), and would otherwise race it.
 * Answers the scenario, the operation and the answer of the apply that resumed it.
 */
export async function conflictAfterFirstWrite(): Promise<{
  sc: Scenario;
  id: string;
  applied: Answer<StagedOperationData>;
}> {
  const s = await stack();
  const sc = await reconcileScenario([1_000, 2_000]);
  const staged = await call<ReconcileData>('POST', RECONCILE, { token: sc.who.alice, body: sc.body });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(sc.who.bob, id)).status).to.equal(200);

  await s.stopWorker();
  const logsBefore = s.workerLogs.length;
  try {
    await s.startWorker({ BOOKSTAGE_TEST_FAULTS: 'apply:after-first-write' });
    expect((await apply(sc.who.bob, id, { prefer: 'wait=1' })).status).to.equal(202);
    await waitFor(
      'the fault hook',
      () => s.workerLogs.slice(logsBefore).some((l) => l.includes('test fault: apply paused')),
      20_000,
    );
  } finally {
    await s.killWorker();
  }
  const second = sc.books.file.bank_transactions.find((t) => t.id === sc.txns[1])!;
  try {
    await s.load({
      ...sc.books.file,
      ledger_entries: [],
      bank_links: [],
      bank_transactions: [{ ...second, remittance_info: 'changed' }],
    });
  } finally {
    await s.startWorker();
  }
  return { sc, id, applied: await apply(sc.who.bob, id, { prefer: 'wait=45' }) };
}

/** Pids of this process's worker children (test/helpers/stack.ts spawns dist/worker/main.js). */
export function workerPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent pid; the command name (field 2) may hold spaces, so split after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('worker/main.js')) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms = 30_000,
  stepMs = 100,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Run `act` on a worker started with `fault`, expect that worker to kill itself, then start a clean one. */
export async function crashAt(fault: string, act: () => Promise<void>): Promise<void> {
  const s = await stack();
  await s.stopWorker();
  await s.startWorker({ BOOKSTAGE_TEST_FAULTS: fault });
  try {
    await act();
    // The fault point must be reached: a switch that never fires fails the test here.
    await waitFor(`the worker to die at ${fault}`, () => workerPids().length === 0, 30_000);
  } finally {
    await s.killWorker();
    await s.startWorker();
  }
}

/** GET a job until it is no longer pending (a stalled job is taken over after the lock lapses: seconds). */
export async function settled<Data>(jobPath: string, token: string, ms = 45_000): Promise<Answer<Data>> {
  let last: Answer<Data> | null = null;
  await waitFor(
    `${jobPath} to settle`,
    async () => {
      last = await call<Data>('GET', jobPath, { token });
      return last.status !== 202;
    },
    ms,
    200,
  );
  return last!;
}

/** Every plan lock of the org, by operation id. */
export async function locksByOperation(db: Db, orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const lock of await db.collection('scope_locks').find({ org_id: orgId }).toArray()) {
    const id = String(lock.staged_operation_id);
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

/** BOOKSTAGE_SOAK=1 (`npm run soak`): the heavier variants, more points and more rounds. */
export const SOAK = process.env.BOOKSTAGE_SOAK === '1';
