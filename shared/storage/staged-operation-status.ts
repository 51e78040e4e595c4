// Moving a staged operation between statuses (docs/design/staged-lifecycle.md).
// A transition is claimed first: its audit event is inserted under an id
// derived from (operation, status left), so exactly one transition out of a
// status wins (audit-events.ts claimTransition). Only the winner then writes
// the operation: status, history item and the transition's own fields.
// Two racing approvers: one claim, one audit event, one history item.
import type { Db } from 'mongodb';
import { journalFromPlan } from '../kinds/journals.js';
import { FINAL_STATUSES, type StagedStatus } from '../domain/staged-transitions.js';
import { claimTransition, ensureStagedEvent } from './audit-events.js';
import { type AuditEventDoc } from './collections.js';
import { collections } from './collections.js';
import { afterTransition, eventView, reserveEvent, type Reservation } from './events.js';
import { readJournalParts } from './apply-journal-parts.js';
import { releaseLocks } from './plan-locks.js';
import type { ApplyJournalState, ApplyResult } from './staged-apply-state.js';
import type { ApplyLeaseStepDoc, HistoryItem, StagedOperationDoc } from './collections.js';
import {
  decodeClaimField,
  encodeClaimField,
  encodeResult,
  encodeSet,
  type EncodedSet,
} from './staged-operation-codec.js';
import { findStagedOperation } from './staged-operations.js';
import { storeAdapter } from './store-adapter.js';
import type { ApprovalState } from '../domain/approval-policy.js';

/**
 * `op` (won only): the operation as this call's write left it, when this call
 * made the write; absent when the operation was already written (an earlier
 * attempt of the same job), then only a read tells what it holds.
 */
export type TransitionOutcome = { won: true; op?: StagedOperationDoc } | { won: false; claim: AuditEventDoc };

export type ClaimedItem = HistoryItem & { to: StagedStatus; request_id: string; claim_id: string };

/**
 * `afterClaim` runs between claim and write (a test fault). `loaded`: the
 * operation as the caller read it in status `from`, used instead of reading
 * it again (see transitionStatus).
 */
export interface TransitionOptions {
  afterClaim?: () => void;
  loaded?: StagedOperationDoc;
}

/**
 * THE one place a status transition is claimed (every approve, reject,
 * expire, apply start and apply end goes through here): claim `from` →
 * `item.to` and, when this job holds the claim (now or from an earlier
 * attempt: the same server-made `claim_id`), write it onto the operation.
 * The claim carries everything the write sets (the result, the journal), so
 * a claim whose holder died before writing is rolled forward by anyone
 * (rollForward). Options: TransitionOptions.
 */
export async function transitionStatus(
  db: Db,
  orgId: string,
  id: string,
  from: StagedStatus,
  item: ClaimedItem,
  set: Pick<Partial<StagedOperationDoc>, 'result' | 'apply' | 'approval'> = {},
  { afterClaim, loaded }: TransitionOptions = {},
): Promise<TransitionOutcome> {
  // The event of the transition is written with its claim (docs/reference/webhooks.md): the operation as the transition leaves it.
  // A document read in status `from` is still the operation as it is when this claim wins: only a transition writes the
  // document (writeTransition), and a transition out of `from` is claimed first, so a won claim means none came between.
  // why: an apply's operation holds its whole plan and journal, which FerretDB converts on every read (docs/design/performance.md "Statement import").
  // The event's sequence is reserved beside the reads below, not after them (docs/design/performance.md "Round trip").
  let reserved: Promise<Reservation> | undefined = reserveEvent(db, orgId);
  reserved.catch(() => undefined);
  const op =
    loaded?._id === id && loaded.org_id === orgId && loaded.status === from
      ? loaded
      : await findStagedOperation(db, orgId, id);
  if (!op) throw new Error(`staged operation ${id} vanished`);
  // Leaving `staged`: its own event first, in case its staging job died before writing it (docs/reference/webhooks.md).
  // That event took a number after ours: ours is left as a gap, so the feed never shows this transition before the staging.
  if (from === 'staged' && (await ensureStagedEvent(db, op))) reserved = undefined;
  // The round it is claimed in; a return to `staged` starts the next one (docs/design/staged-lifecycle.md "Apply checks the policy again").
  const round = op.round ?? 0;
  const written: TransitionSet = item.to === 'staged' ? { ...set, round: round + 1 } : set;
  const claim = await claimTransition(
    db,
    {
      org_id: orgId,
      staged_operation_id: id,
      at: item.at,
      actor: item.actor,
      request_id: item.request_id,
      claim_id: item.claim_id,
      claimed_at: new Date().toISOString(),
      from,
      to: item.to,
      note: item.note,
      // As text, as the operation stores them (staged-operation-codec.ts): the journal can be thousands of documents.
      ...(set.result ? { result_json: encodeClaimField(set.result) } : {}),
      ...(set.apply ? { apply_json: encodeClaimField(set.apply) } : {}),
      ...(set.approval ? { approval_json: JSON.stringify(set.approval) } : {}),
      ...(round > 0 ? { round } : {}),
    },
    eventView(afterTransition(op, item.to, item, written)),
    { reserved },
  );
  if (claim.claim_id !== item.claim_id) return { won: false, claim };
  afterClaim?.();
  // Written by this call: the stored document is the one read in `from` with the transition applied (the write is guarded by
  // that status), so the caller goes on without reading it back (docs/design/performance.md "Statement import").
  if (await writeTransition(db, orgId, id, from, item, written, claim._id))
    return { won: true, op: afterTransition(op, item.to, item, written) };
  return { won: true };
}

/** What a transition writes beside status and history: an apply's journal or result, a return's approval and round. */
type TransitionSet = EncodedSet & Partial<Pick<StagedOperationDoc, 'approval' | 'round'>>;

/** Whether a claim holds all its write needs (an apply start claimed before claims carried the journal does not). */
export const canRollForward = (claim: AuditEventDoc): boolean =>
  claim.to !== 'applying' || claim.apply_json !== undefined || claim.apply !== undefined;

/**
 * Write a claimed transition that the operation does not show yet: its
 * winner's job died between the claim and this write (or is slower than
 * CLAIM_WAIT_MS). The claim carries the result or the journal, so the write is
 * the one its winner would have made.
 */
export async function rollForward(db: Db, orgId: string, id: string, claim: AuditEventDoc): Promise<void> {
  const item: HistoryItem = {
    at: claim.at,
    actor: claim.actor,
    from: claim.from as StagedStatus,
    to: claim.to as StagedStatus,
    note: claim.note ?? null,
    request_id: claim.request_id,
    ...(claim.claim_id ? { claim_id: claim.claim_id } : {}),
  };
  await writeTransition(
    db,
    orgId,
    id,
    claim.from as StagedStatus,
    item,
    {
      ...(claimResult(claim) ? { result: claimResult(claim) as ApplyResult } : {}),
      ...(claimApply(claim) ? { apply: claimApply(claim) as ApplyJournalState } : {}),
      ...(claim.approval_json ? { approval: JSON.parse(claim.approval_json) as ApprovalState } : {}),
      ...(claim.to === 'staged' ? { round: (claim.round ?? 0) + 1 } : {}),
    },
    claim._id,
  );
}

/** A claim's result and journal: as text (staged-operation-codec.ts), or as documents in a claim written before. */
const claimResult = (claim: AuditEventDoc): unknown => decodeClaimField(claim.result_json ?? claim.result);
const claimApply = (claim: AuditEventDoc): unknown => decodeClaimField(claim.apply_json ?? claim.apply);

/** True when this write moved the operation (it was still in `from`). */
async function writeTransition(
  db: Db,
  orgId: string,
  id: string,
  from: StagedStatus,
  item: HistoryItem,
  set: TransitionSet,
  claimId: string,
): Promise<boolean> {
  const { approval, round, ...fields } = set;
  const { result_json, ...encoded } = encodeSet(fields);
  // Guarded by status (the store port's writeTransition), so a retried attempt does not push the history item twice.
  return (await storeAdapter(db)).writeTransition(
    orgId,
    id,
    from,
    {
      ...encoded,
      // A long result stays in the claim that carries it (staged-operation-codec.ts): the operation names the claim.
      ...encodeResult(result_json, claimId),
      ...(approval ? { approval } : {}),
      ...(round !== undefined ? { round } : {}),
      status: item.to,
    },
    item,
  );
}

/** Once final, every plan lock of the operation goes, at once. Idempotent: a retried job runs it again. */
export async function settleOperation(db: Db, op: StagedOperationDoc): Promise<void> {
  if (!FINAL_STATUSES.includes(op.status)) return;
  lastStep.delete(op._id);
  await releaseLocks(db, op.org_id, op._id);
}

/**
 * The lease on a running apply journal, and its progress, as a chain of
 * steps (docs/operating/reliability.md "Atomic primitives"): step N+1 is inserted
 * under `_id` = `OPERATION#N+1`, so of two writers building on step N only
 * one gets its step in; the other re-reads. A renewal, a takeover and a
 * progress record are each one insert. Nothing here writes the operation
 * document: on FerretDB a filtered `$set` beside the transition write (a
 * heartbeat) could undo it. Step 0 is the journal as the applying transition
 * stored it on the operation.
 */
type Step = Omit<ApplyLeaseStepDoc, '_id'>;

/** The last step this process inserted, by operation: the next one is built on it without a read (one round trip per record). */
const lastStep = new Map<string, Step>();
const stepId = (operationId: string, seq: number): string => `${operationId}#${String(seq).padStart(8, '0')}`;

function stepZero(op: StagedOperationDoc): Step | null {
  if (!op.apply) return null;
  const { owner, lease_until, done, undone, phase, conflict } = op.apply;
  return { org_id: op.org_id, staged_operation_id: op._id, seq: 0, owner, lease_until, done, undone, phase, conflict };
}

/**
 * The lease's latest step, or step 0 while there is none: only then is the
 * operation (`operation`, which may read it) needed. why one step: a big
 * journal's lease has thousands of steps, and reading them all on every
 * renewal that met another step made a 10,000-transaction repair's apply
 * read thousands of documents per step.
 */
async function latestStep(
  db: Db,
  orgId: string,
  id: string,
  operation: () => Promise<StagedOperationDoc | null>,
): Promise<Step | null> {
  const [latest] = await collections(db)
    .applyLeases.find({ org_id: orgId, staged_operation_id: id })
    .sort({ seq: -1 })
    .limit(1)
    .toArray();
  if (!latest) {
    const op = await operation();
    return op ? stepZero(op) : null;
  }
  const { _id, ...step } = latest;
  return step;
}

/** Insert the step after `base`; false when another step took its place. */
async function insertStep(db: Db, base: Step, next: Partial<Step>): Promise<Step | null> {
  const step: Step = { ...base, ...next, seq: base.seq + 1 };
  const store = await storeAdapter(db);
  if (!(await store.appendLeaseStep({ _id: stepId(step.staged_operation_id, step.seq), ...step }))) return null;
  lastStep.set(step.staged_operation_id, step);
  return step;
}

/**
 * The journal's writes: derived from the plan when the journal is a function
 * of it, else from its parts (apply-journal-parts.ts), else as the operation
 * holds them (in memory after the applying transition, or stored on an
 * operation written before the parts).
 */
export async function journalWrites(
  db: Db,
  op: StagedOperationDoc,
  apply: ApplyJournalState,
): Promise<ApplyJournalState['writes']> {
  if (apply.writes_from_plan) {
    const writes = journalFromPlan(op.kind, op.plan);
    if (!writes) throw new Error(`staged operation ${op._id}: a ${op.kind} journal cannot be derived from its plan`);
    return writes;
  }
  if (apply.journal_id !== undefined && apply.journal_parts !== undefined && apply.writes.length === 0)
    return readJournalParts(db, op.org_id, op._id, {
      journal_id: apply.journal_id,
      journal_parts: apply.journal_parts,
    });
  return apply.writes;
}

/** The operation's journal with its current progress and lease (the latest step). */
export async function readApplyJournal(db: Db, op: StagedOperationDoc): Promise<ApplyJournalState> {
  const latest = await latestStep(db, op.org_id, op._id, () => Promise.resolve(op));
  if (!op.apply || !latest) throw new Error(`staged operation ${op._id} has no apply journal`);
  const { owner, lease_until, done, undone, phase, conflict } = latest;
  return {
    ...op.apply,
    writes: await journalWrites(db, op, op.apply),
    owner,
    lease_until,
    done,
    undone,
    phase,
    conflict,
  };
}

/**
 * Take the lease of an applying operation: its owner (the same job, retried)
 * renews it; anyone takes it once it lapsed. True when `jobId` holds it.
 * `loaded`: the operation as the caller just read it, used instead of reading
 * it again (its journal does not change while it is applying; the lease is
 * decided by the steps alone).
 */
export async function takeApplyLease(
  db: Db,
  orgId: string,
  id: string,
  jobId: string,
  now: Date,
  leaseMs: number,
  loaded?: StagedOperationDoc,
): Promise<boolean> {
  const op = loaded?._id === id && loaded.org_id === orgId ? loaded : await findStagedOperation(db, orgId, id);
  if (!op || op.status !== 'applying' || !op.apply) return false;
  const latest = await latestStep(db, orgId, id, () => Promise.resolve(op));
  if (!latest) return false;
  if (latest.owner !== jobId && latest.lease_until >= now.toISOString()) return false;
  return (
    (await insertStep(db, latest, { owner: jobId, lease_until: new Date(now.getTime() + leaseMs).toISOString() })) !==
    null
  );
}

/**
 * Each operation's progress records in this process, one after the other.
 * why: a job's heartbeat and its journal steps both record; run at once they
 * built on the same step, one of them lost the insert and read the lease
 * again, as if another job had taken it.
 */
const recording = new Map<string, Promise<boolean>>();

/** Record journal progress (and renew the lease) while `jobId` still holds it; false when it lost the lease. */
export function recordApplyProgress(
  db: Db,
  orgId: string,
  id: string,
  jobId: string,
  progress: Partial<Pick<ApplyJournalState, 'done' | 'undone' | 'phase' | 'conflict'>>,
  leaseMs: number,
): Promise<boolean> {
  const inTurn = (): Promise<boolean> => recordInTurn(db, orgId, id, jobId, progress, leaseMs);
  const previous = recording.get(id);
  const next = previous ? previous.then(inTurn, inTurn) : inTurn();
  recording.set(id, next);
  const forget = (): void => {
    if (recording.get(id) === next) recording.delete(id);
  };
  next.then(forget, forget);
  return next;
}

async function recordInTurn(
  db: Db,
  orgId: string,
  id: string,
  jobId: string,
  progress: Partial<Pick<ApplyJournalState, 'done' | 'undone' | 'phase' | 'conflict'>>,
  leaseMs: number,
): Promise<boolean> {
  let base = lastStep.get(id);
  for (let attempt = 0; attempt < 20; attempt += 1) {
    // The operation is read only while its lease has no step yet.
    base ??= (await latestStep(db, orgId, id, () => findStagedOperation(db, orgId, id))) ?? undefined;
    if (!base || base.owner !== jobId) {
      lastStep.delete(id);
      return false;
    }
    if (await insertStep(db, base, { ...progress, lease_until: new Date(Date.now() + leaseMs).toISOString() }))
      return true;
    // Another step came first: another job took the lease (then it is lost), or built on it before it lapsed.
    base = undefined;
  }
  return false;
}
