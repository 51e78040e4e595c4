// The answer of every finished staging job, kept ≥ 24 h in MongoDB so that
// polling and idempotent replays outlive BullMQ's own job retention. First
// write wins: a job is answered once, and every reader (the waiting request,
// a replay, GET /jobs/{id}) reads that one answer. A staged answer does not
// copy its plan nor its context (the records the plan read: 21 MB of JSON
// for a 10,000-transaction repair, written again by every job that answers
// the same pending operation): both are stored once, in the staged
// operation, and joined back here (they never change once written).
//
// An answer whose JSON is past ANSWER_PART_CHARS (an approval or an apply
// of a repair of some 12,000 transactions or more carries its plan and
// context; a dry run stores only an answer too big for its job's return value, for an hour) is stored in parts, as an operation's body is: no document
// may pass MongoDB's 16 MiB (docs/design/staged-lifecycle.md "How an
// operation is stored").
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Db } from 'mongodb';
import type { StageAnswer } from '../contract/staging-answer.js';
import { collections, type JobResultDoc, type JobResultPartDoc, type StoredJobResult } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findStagedOperation } from './staged-operations.js';
import { BODY_PART_CHARS } from './staged-operation-codec.js';
import { storeAdapter } from './store-adapter.js';
import { splitFields } from './text-parts.js';

/** At most this many characters of an answer's JSON in one document (as BODY_PART_CHARS, and for the same reason). */
export const ANSWER_PART_CHARS = BODY_PART_CHARS;

export const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A dry run's answer too big for its job's return value: kept as long as the dry run's job (shared/queue/stage-jobs.ts dryRunJobOptions). */
export const DRY_RUN_RESULT_RETENTION_MS = 60 * 60 * 1000;

/** A stored answer one of whose parts is not there, or not its own: never written so by this code (parts are inserted before their answer). */
export class MissingAnswerPartError extends Error {
  constructor(
    readonly jobId: string,
    readonly partId: string,
  ) {
    super(`job ${jobId}: part ${partId} of its stored answer is missing`);
    this.name = 'MissingAnswerPartError';
  }
}

/**
 * Store the job's answer unless one is stored already (first write wins): a
 * plain insert, its duplicate key the "already stored" (one statement on
 * FerretDB, where an upsert is a read and then an insert). True when this
 * write stored it. On FerretDB 1.x the insert is written in SQL
 * (docs/indexes.md "Writes in SQL"): every staging job that does not stage
 * (a noop, a refusal, a replay of a pending operation) stores its answer
 * here, and FerretDB's insert is a transaction of three statements.
 */
export async function saveJobResult(
  db: Db,
  doc: Omit<JobResultDoc, 'expires_at'>,
  partChars = ANSWER_PART_CHARS,
  retentionMs = RESULT_RETENTION_MS,
): Promise<boolean> {
  const stored = storedJobResult(doc, retentionMs);
  const inSql = await (
    await storeAdapter(db)
  ).insertTogether([{ collection: collections(db).jobResults.collectionName, docs: [stored] }]);
  if (inSql !== 'declined') return inSql === 'stored';
  if (stored.answer_json !== undefined && stored.answer_json.length > partChars)
    return saveInParts(db, stored, partChars);
  try {
    await collections(db).jobResults.insertOne(stored);
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return false;
  }
}

/**
 * An answer too big for one document: its parts first, under ids of this
 * write alone, then the answer naming them, whose insert decides as any
 * other's does. A write that loses takes its parts back.
 */
async function saveInParts(db: Db, stored: StoredJobResult, partChars: number): Promise<boolean> {
  const { answer_json: json, ...head } = stored;
  const partId = `${stored._id}:${randomUUID()}`;
  const slices = splitFields([['answer_json', json!]], partChars);
  const parts: JobResultPartDoc[] = slices.map((slice, part) => ({
    _id: `${partId}/${part}`,
    org_id: stored.org_id,
    part_of: stored._id,
    part,
    answer_json: slice.answer_json!,
    expires_at: stored.expires_at,
  }));
  const c = collections(db);
  await c.jobResultParts.insertMany(parts, { ordered: true });
  try {
    await c.jobResults.insertOne({ ...head, answer_parts: parts.length, answer_part_id: partId });
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await c.jobResultParts.deleteMany({ _id: { $in: parts.map((p) => p._id) } });
    return false;
  }
}

/** The document saveJobResult inserts: for a caller that inserts it together with the writes it answers. */
export function storedJobResult(
  doc: Omit<JobResultDoc, 'expires_at'>,
  retentionMs = RESULT_RETENTION_MS,
): StoredJobResult {
  const expires = new Date(Date.parse(doc.finished_at) + retentionMs).toISOString();
  const { answer, ...rest } = doc;
  return { ...rest, answer_json: JSON.stringify(withoutPlan(answer)), expires_at: expires };
}

/**
 * The stored answer of a job, its plan joined back from the operation; null
 * while there is none. `stagedOperationId`, when the caller knows it (the
 * job's return value), lets both reads go out at once.
 */
export async function findJobResult(
  db: Db,
  orgId: string,
  jobId: string,
  stagedOperationId?: string,
): Promise<JobResultDoc | null> {
  const [doc, known] = await Promise.all([
    findResult(db, orgId, jobId),
    stagedOperationId ? findStagedOperation(db, orgId, stagedOperationId) : null,
  ]);
  if (!doc || doc.answer.outcome !== 'staged') return doc;
  const op =
    known?._id === doc.answer.staged_operation_id
      ? known
      : await findStagedOperation(db, orgId, doc.answer.staged_operation_id);
  if (!op) return null;
  return { ...doc, answer: withPlan(doc.answer, op.context ?? {}, op.plan, op.plan_hash) };
}

/**
 * The stored document. On FerretDB 1.x it is read in SQL by FerretDB's
 * `_id` btree and decoded here: a big plan's answer carries its context (the
 * records the plan read, 21 MB of JSON for a 10,000-transaction repair),
 * which FerretDB takes seconds of CPU to convert (docs/indexes.md "Worker
 * reads in SQL").
 */
async function findResult(db: Db, orgId: string, jobId: string): Promise<JobResultDoc | null> {
  const stored = (await (
    await storeAdapter(db)
  ).findOwnedById(collections(db).jobResults.collectionName, orgId, jobId)) as StoredJobResult | null;
  if (stored === null) return null;
  return decodeJobResult(stored, stored.answer_parts === undefined ? [] : await readAnswerParts(db, stored));
}

/** An answer's parts, in part order; a missing one is an error, never half an answer. */
async function readAnswerParts(db: Db, stored: StoredJobResult): Promise<JobResultPartDoc[]> {
  const ids = Array.from({ length: stored.answer_parts! }, (_, part) => `${stored.answer_part_id!}/${part}`);
  const found = (await (
    await storeAdapter(db)
  ).findByIds(collections(db).jobResultParts.collectionName, ids, { owner: stored.org_id })) as JobResultPartDoc[];
  const byId = new Map(
    found.filter((p) => p.org_id === stored.org_id && p.part_of === stored._id).map((p) => [p._id, p]),
  );
  return ids.map((id) => {
    const part = byId.get(id);
    if (!part) throw new MissingAnswerPartError(stored._id, id);
    return part;
  });
}

/** A stored answer as read; `parts`: its parts in order, when it was stored in parts. */
export function decodeJobResult(stored: StoredJobResult, parts: readonly JobResultPartDoc[] = []): JobResultDoc {
  const { answer_json, answer, answer_parts: _parts, answer_part_id: _partId, ...rest } = stored;
  const json = parts.length > 0 ? parts.map((p) => p.answer_json).join('') : answer_json;
  return { ...rest, answer: json === undefined ? answer! : (JSON.parse(json) as StageAnswer) };
}

/** A stored staged answer with its operation's context and plan joined back, as every reader gets it: the last three keys of its data, in the order the worker wrote them. */
function withPlan(
  answer: StageAnswer & { outcome: 'staged' },
  context: unknown,
  plan: unknown,
  hash: unknown,
): StageAnswer {
  return { ...answer, data: { ...answer.data, context, plan, plan_hash: hash } };
}

/**
 * The answer as findJobResult would give it back once stored, for a job's
 * return value (shared/queue/stage-jobs.ts StageJobReturn): null when its
 * JSON is longer than `maxChars`, or when it holds anything JSON and BSON
 * would not both keep as it is (undefined, a Date, NaN), so that what the
 * API answers from it is byte for byte the stored answer.
 */
export function carriedAnswer(answer: StageAnswer, maxChars: number): StageAnswer | null {
  const json = JSON.stringify(answer);
  if (json.length > maxChars) return null;
  const plain = JSON.parse(json) as StageAnswer;
  if (!isDeepStrictEqual(plain, answer)) return null;
  if (plain.outcome !== 'staged') return plain;
  const { context, plan, plan_hash: hash } = plain.data as typeof plain.data & { context?: unknown };
  return withPlan(withoutPlan(plain) as StageAnswer & { outcome: 'staged' }, context ?? {}, plan, hash);
}

function withoutPlan(answer: StageAnswer): StageAnswer {
  if (answer.outcome !== 'staged') return answer;
  const {
    context: _context,
    plan: _plan,
    plan_hash: _hash,
    ...data
  } = answer.data as typeof answer.data & { context?: unknown };
  return { ...answer, data };
}

export async function sweepJobResults(db: Db, now: Date): Promise<number> {
  return (await collections(db).jobResults.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
