// Running an apply journal to its end (docs/design/staged-lifecycle.md "Crash
// safety"). The journal was stored on the operation before the first write;
// whoever holds the operation's apply lease makes the writes from `done` on,
// step by step, recording progress after each step: a step is a run of
// consecutive writes into one collection (makeStep; `done` then moves past
// it; the organisation's own document is written alone). Writes are
// idempotent, so a job that died
// anywhere leaves nothing a successor cannot finish: the same job retried by
// BullMQ takes its lease back at once, any other apply job takes it once it
// lapses (no heartbeat for APPLY_LEASE_MS). A write that meets a conflicting
// change turns the journal around: the writes made are undone, in reverse,
// and the operation ends `failed` (or `stale`, when nothing had been written).
// So does a write the store refuses for good (store-refusal.ts: a document it
// cannot hold), which ends `failed` whatever was written: retried, it would
// fail the same way on every attempt and hold the operation's locks for ever.
import { AppError } from '../../shared/errors.js';
import {
  INSERT_BATCH_LIMITS,
  journalChanges,
  journalStepEnd,
  type JournalWrite,
} from '../../shared/domain/apply-journal.js';
import { makeInserts, makeRun, makeWrite, undoWrite, type InsertsOutcome } from '../../shared/storage/apply-writes.js';
import { touchedEntries } from '../../shared/domain/entry-open-amounts.js';
import { refreshOpenAmounts } from '../../shared/storage/entry-open-amounts.js';
import { invalidateFigures, markFigures, type TouchedFigures } from '../../shared/storage/book-figures.js';
import { movesEveryFigure, touchedByWrites } from '../../shared/storage/figures-touched.js';
import {
  addInsertedTransactions,
  readBeforeInserts,
  type FiguresBefore,
} from '../../shared/storage/figure-additions.js';
import { operationHolder } from '../../shared/storage/version-reservations.js';
import { storeRefusal } from '../../shared/storage/store-refusal.js';
import type { ApplyJournalState, ApplyResult } from '../../shared/storage/staged-apply-state.js';
import {
  readApplyJournal,
  recordApplyProgress,
  rollForward,
  settleOperation,
  takeApplyLease,
  transitionStatus,
} from '../../shared/storage/staged-operation-status.js';
import { findStagedOperation, findStagedOperationStatus } from '../../shared/storage/staged-operations.js';
import { type StagedOperationDoc } from '../../shared/storage/collections.js';
import type { JobContext } from '../job-context.js';
import { WORKER_KINDS } from '../kinds.js';
import { crashIf, faultOn, type TestFault } from '../test-faults.js';
import { historyItem } from './claims.js';

/** A journal's owner renews its lease every third of this; another job takes over once it lapsed. */
export const APPLY_LEASE_MS = 10_000;
const WAIT_STEP_MS = 200;
/** How long a job waits for another job's journal before it fails (BullMQ retries it). */
const WAIT_LIMIT_MS = 3 * APPLY_LEASE_MS;

class LeaseLost extends Error {}

/**
 * Run (or wait for, at most `waitMs`) the operation's journal until the
 * operation is final; returns it final. `written`: the operation as the
 * caller's applying transition wrote it (its first turn needs no read).
 */
export async function finishJournal(
  ctx: JobContext,
  id: string,
  waitMs = WAIT_LIMIT_MS,
  written?: StagedOperationDoc,
): Promise<StagedOperationDoc> {
  const orgId = ctx.data.org_id;
  const waitUntil = Date.now() + waitMs;
  // The operation as last read whole. While it is `applying` its plan and journal do not change, so a turn
  // that waits for another job's lease reads its status alone (a big repair's operation is megabytes).
  let known = written?._id === id ? written : undefined;
  for (let first = true; ; first = false) {
    // The caller's operation, just written, needs no read on the first turn.
    const reuse = known !== undefined && (first || (await findStagedOperationStatus(ctx.db, orgId, id)) === 'applying');
    if (!reuse) known = (await findStagedOperation(ctx.db, orgId, id)) ?? undefined;
    const op = known;
    if (!op) throw new Error(`staged operation ${id} disappeared`);
    if (op.status !== 'applying') return op;
    // The operation is the lease's too: takeApplyLease reads only the lease's steps.
    if (await takeApplyLease(ctx.db, orgId, id, ctx.jobId, new Date(), APPLY_LEASE_MS, op)) {
      try {
        // The operation as the run's end left it: final, so answered without reading it once more.
        // Only the job whose transition wrote the journal, on its first turn, knows no write of it was made before.
        const ended = await runHeld(ctx, op, first && written?._id === id);
        if (ended && ended.status !== 'applying') return ended;
      } catch (err) {
        if (!(err instanceof LeaseLost)) throw err;
        ctx.log.warn({ staged_operation_id: id }, 'apply lease lost to another job; waiting for it');
      }
      continue;
    }
    if (Date.now() > waitUntil) throw new Error(`the apply journal of ${id} is held by another job`);
    await sleep(WAIT_STEP_MS);
  }
}

/**
 * Run the journal while holding the lease; the operation as its end left it
 * (null when it was gone). `untouched`: no write of the journal was made
 * before this run, so its figures may be added (figure-additions.ts).
 */
async function runHeld(
  ctx: JobContext,
  op: StagedOperationDoc,
  untouched: boolean,
): Promise<StagedOperationDoc | null> {
  const { db } = ctx;
  const orgId = ctx.data.org_id;
  const journal = await readApplyJournal(db, op);
  let before =
    untouched && journal.phase === 'forward' && journal.done === 0
      ? await readBeforeInserts(db, orgId, journal.writes)
      : null;
  // What the whole journal touches is the same read before, during or after its writes (figures-touched.ts), so
  // it is read while they are made; awaited only by a forward run that ends, any failure surfaces there.
  const touched = journal.phase === 'forward' && !before ? touchedByWrites(db, orgId, journal.writes) : null;
  touched?.catch(() => undefined);
  const progress = async (p: Parameters<typeof recordApplyProgress>[4]): Promise<void> => {
    if (!(await recordApplyProgress(db, orgId, op._id, ctx.jobId, p, APPLY_LEASE_MS))) throw new LeaseLost();
  };
  const heartbeat = setInterval(() => {
    recordApplyProgress(db, orgId, op._id, ctx.jobId, {}, APPLY_LEASE_MS).catch((err: unknown) =>
      ctx.log.warn({ err }, 'apply lease renewal failed'),
    );
  }, APPLY_LEASE_MS / 3);
  try {
    let { done, phase } = journal;
    // Where the run's time went, for the log line at its end (ms since the lease was taken).
    const t0 = Date.now();
    const took: Record<string, number> = {};
    const lap = (name: string): void => {
      took[name] = Date.now() - t0 - Object.values(took).reduce((a, b) => a + b, 0);
    };
    if (phase === 'forward') {
      // No write of the journal was made before this run: its steps need not be read before they are written (makeRun).
      let fresh = untouched && done === 0;
      while (done < journal.writes.length) {
        const from = done;
        const end = journalStepEnd(journal.writes, from, INSERT_BATCH_LIMITS, atFaultPoint);
        const made = await makeStep(db, orgId, journal.writes.slice(from, end), operationHolder(op._id), fresh);
        // A write already there may have been counted by a writer since: the figures are computed.
        if (made.found) {
          before = null;
          fresh = false;
        }
        crashIf(`apply:crash-after-write:${made.conflict ? from + made.made + 1 : end}`);
        if (made.conflict) {
          // Everything before the conflicting write is made, nothing after it: `done` says so in the same step that turns the journal around.
          done = from + made.made;
          const write = journal.writes[done]!;
          phase = 'undo';
          const refused = made.refused === undefined ? {} : { refused: made.refused };
          await progress({ done, phase, conflict: { collection: write.collection, id: write.id, ...refused } });
          ctx.log.warn(
            { staged_operation_id: op._id, collection: write.collection, id: write.id, ...refused },
            made.refused === undefined
              ? 'apply met a conflicting change; undoing'
              : 'the store refused a write; undoing',
          );
          break;
        }
        done = end;
        await progress({ done });
        crashIf(`apply:crash-after-progress:${done}`);
        if (from === 0) await testFault(ctx, 'apply:after-first-write');
      }
    }
    lap('writes_ms');
    if (phase === 'forward') {
      crashIf('apply:crash-before-finish');
      // The open amounts of the entries the writes touched (docs/design/entry-open-amounts.md), from the store as
      // the journal left it, and the kept figures added to or marked stale, side by side (they share no document):
      // before the end is written, so a job that dies here is resumed and does both again.
      await Promise.all([
        refreshOpenAmounts(db, orgId, touchedEntries(journal.writes)),
        keepFigures(ctx, journal.writes, before, touched),
      ]);
      lap('derived_ms');
      return finish(ctx, op, took, {
        status: 'applied',
        at: new Date().toISOString(),
        by: ctx.data.actor,
        changes: journalChanges(journal.writes),
        ...(journal.links ? { links: journal.links } : {}),
      });
    }
    const conflict = (await readApplyJournal(db, op)).conflict ?? journal.conflict;
    let undone = journal.phase === 'undo' ? journal.undone : 0;
    const undoConflicts: string[] = [];
    for (; undone < done; undone += 1) {
      const write = journal.writes[done - 1 - undone]!;
      if ((await undoWrite(db, orgId, write, operationHolder(op._id))) === 'conflict')
        undoConflicts.push(`${write.collection}/${write.id}`);
      await progress({ undone: undone + 1 });
    }
    await refreshOpenAmounts(db, orgId, touchedEntries(journal.writes.slice(0, done)));
    await keepFigures(ctx, journal.writes.slice(0, done));
    const storeRefused = conflict?.refused !== undefined;
    const error = storeRefused
      ? new AppError('apply_failed', {
          details: {
            staged_operation_id: op._id,
            reason: undoConflicts.length > 0 ? 'store_refused_write_not_fully_undone' : 'store_refused_write',
            conflict,
            not_undone: undoConflicts,
          },
        })
      : done === 0
        ? new AppError('stale_plan', {
            details: {
              staged_operation_id: op._id,
              changed: conflict ? [{ collection: conflict.collection, id: conflict.id }] : [],
            },
          })
        : new AppError('apply_failed', {
            details: {
              staged_operation_id: op._id,
              reason: undoConflicts.length > 0 ? 'conflict_during_apply_not_fully_undone' : 'conflict_during_apply',
              conflict,
              not_undone: undoConflicts,
            },
          });
    return await finish(ctx, op, took, {
      status: done === 0 && !storeRefused ? 'stale' : 'failed',
      at: new Date().toISOString(),
      by: ctx.data.actor,
      error: error.toBody(),
    });
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The kept figures of the records the journal wrote (docs/reference/book-reads.md
 * "Kept figures"), before the operation ends: added to where `before` was
 * read, the others marked stale and left to the worker's refresh once the
 * job has answered (JobContext.figuresLeftStale), or to the first reader. A
 * job that dies here leaves the operation applying, and whoever finishes it
 * does this again.
 */
async function keepFigures(
  ctx: JobContext,
  writes: readonly JournalWrite[],
  before: FiguresBefore | null = null,
  touched: Promise<TouchedFigures> | null = null,
): Promise<void> {
  const orgId = ctx.data.org_id;
  let left: TouchedFigures;
  if (before) left = await addInsertedTransactions(ctx.db, orgId, before, writes);
  else {
    if (movesEveryFigure(writes)) await invalidateFigures(ctx.db, orgId);
    left = await (touched ?? touchedByWrites(ctx.db, orgId, writes));
  }
  if (await markFigures(ctx.db, orgId, left)) ctx.figuresLeftStale?.(orgId);
}

/**
 * Make one journal step (journalStepEnd): a run of inserts (makeInserts), a
 * run with updates or deletes under its versions' reservations (makeRun; not
 * read first while `fresh`), or a single write.
 */
async function makeStep(
  db: JobContext['db'],
  orgId: string,
  step: JournalWrite[],
  holder: string,
  fresh: boolean,
): Promise<InsertsOutcome> {
  const first = step[0]!;
  const inserts = step.filter((w) => w.action === 'insert');
  if (inserts.length === step.length) return makeInserts(db, orgId, inserts, holder);
  if (step.length > 1) return makeRun(db, orgId, step, holder, { fresh });
  try {
    return (await makeWrite(db, orgId, first, holder)) === 'done'
      ? { made: 1, conflict: false }
      : { made: 0, conflict: true };
  } catch (err) {
    const refused = storeRefusal(err);
    if (refused === null) throw err;
    return { made: 0, conflict: true, refused };
  }
}

/**
 * A step never runs past a write that a test-fault point names (always false
 * in production): `apply:crash-after-write:N` then dies with writes 1..N made
 * and nothing after, which is what a worker killed in the middle of an
 * ordered insertMany leaves; `apply:crash-after-progress:N` dies with done = N.
 */
function atFaultPoint(n: number): boolean {
  return (
    faultOn(`apply:crash-after-write:${n}`) ||
    faultOn(`apply:crash-after-progress:${n}`) ||
    (n === 1 && faultOn('apply:after-first-write'))
  );
}

async function finish(
  ctx: JobContext,
  op: StagedOperationDoc,
  took: Record<string, number>,
  result: ApplyResult,
): Promise<StagedOperationDoc | null> {
  const t0 = Date.now();
  const moved = await transitionStatus(
    ctx.db,
    ctx.data.org_id,
    op._id,
    'applying',
    historyItem(ctx, 'applying', result.status, null),
    { result },
    { loaded: op },
  );
  // An earlier holder of the lease claimed the end and died before writing it: we hold the lease now, so we write its claim.
  if (!moved.won) await rollForward(ctx.db, ctx.data.org_id, op._id, moved.claim);
  // Written here: the operation as it now is, without reading it back (it holds the plan, the journal and the result).
  const after = moved.won && moved.op ? moved.op : await findStagedOperation(ctx.db, ctx.data.org_id, op._id);
  if (after) await settleOperation(ctx.db, after);
  if (result.status === 'applied') await WORKER_KINDS[op.kind].afterApplied?.(ctx, op);
  if (moved.won)
    ctx.log.info(
      { staged_operation_id: op._id, status: result.status, ...took, end_ms: Date.now() - t0 },
      'apply finished',
    );
  return after;
}

/**
 * Test-only fault injection (BOOKSTAGE_TEST_FAULTS, worker/test-faults.ts,
 * never set through the API): the job stops here for good, its lease kept
 * alive by the heartbeat, until the test kills the worker.
 */
async function testFault(ctx: JobContext, point: TestFault): Promise<void> {
  if (!faultOn(point)) return;
  ctx.log.warn({ fault: point }, 'test fault: apply paused after the first journal write');
  await new Promise<never>(() => undefined);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type { ApplyJournalState };
