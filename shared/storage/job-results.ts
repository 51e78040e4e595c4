// The answer of every finished staging job, kept ≥ 24 h in MongoDB so that
// polling and idempotent replays outlive BullMQ's own job retention. First
// write wins: a job is answered once, and every reader (the waiting request,
// a replay, GET /jobs/{id}) reads that one answer. A staged answer does not
// copy its plan: the plan is stored once, in the staged operation, and joined
// back here (it never changes once written).
import type { Db } from 'mongodb';
import type { StageAnswer } from '../contract/staging-answer.js';
import { collections, type JobResultDoc } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findStagedOperation } from './staged-operations.js';
import { findOwnedById } from './where-in.js';

export const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * Store the job's answer unless one is stored already (first write wins): a
 * plain insert, its duplicate key the "already stored" (one statement on
 * FerretDB, where an upsert is a read and then an insert).
 */
export async function saveJobResult(db: Db, doc: Omit<JobResultDoc, 'expires_at'>): Promise<void> {
  const expires = new Date(Date.parse(doc.finished_at) + RESULT_RETENTION_MS).toISOString();
  const answer = withoutPlan(doc.answer);
  try {
    await collections(db).jobResults.insertOne({ ...doc, answer, expires_at: expires });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/**
 * The stored answer of a job, its plan joined back from the operation; null
 * while there is none. `stagedOperationId`, when the caller knows it (the
 * job's return value), lets both reads go out at once.
 */
export async function findJobResult(db: Db, orgId: string, jobId: string, stagedOperationId?: string): Promise<JobResultDoc | null> {
  const [doc, known] = await Promise.all([
    findOwnedById(collections(db).jobResults, orgId, jobId),
    stagedOperationId ? findStagedOperation(db, orgId, stagedOperationId) : null,
  ]);
  if (!doc || doc.answer.outcome !== 'staged') return doc;
  const op = known?._id === doc.answer.staged_operation_id ? known : await findStagedOperation(db, orgId, doc.answer.staged_operation_id);
  if (!op) return null;
  return { ...doc, answer: { ...doc.answer, data: { ...doc.answer.data, plan: op.plan, plan_hash: op.plan_hash } } };
}

function withoutPlan(answer: StageAnswer): StageAnswer {
  if (answer.outcome !== 'staged') return answer;
  const { plan: _plan, plan_hash: _hash, ...data } = answer.data;
  return { ...answer, data };
}

export async function sweepJobResults(db: Db, now: Date): Promise<number> {
  return (await collections(db).jobResults.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
