// The answer of every finished staging job, kept ≥ 24 h in MongoDB so that
// polling and idempotent replays outlive BullMQ's own job retention. First
// write wins: a job is answered once, and every reader (the waiting request,
// a replay, GET /jobs/{id}) reads that one answer. A staged answer does not
// copy its plan nor its context (the records the plan read: 21 MB of JSON
// for a 10,000-transaction repair, written again by every job that answers
// the same pending operation): both are stored once, in the staged
// operation, and joined back here (they never change once written).
//
// Nor does an apply's answer copy a long result (past RESULT_INLINE_LIMIT:
// every change and the link each action went to, 3 MB of JSON for a
// 10,000-transaction repair): the operation holds it once, final, and it is
// joined back here too.
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
import {
  collections,
  type JobResultDoc,
  type JobResultPartDoc,
  type StagedOperationDoc,
  type StoredJobResult,
} from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findStagedOperation, findStagedOperationResult } from './staged-operations.js';
import { BODY_PART_CHARS, RESULT_INLINE_LIMIT } from './staged-operation-codec.js';
import { storeAdapter } from './store-adapter.js';
import { splitFields } from './text-parts.js';

/** At most this many characters of an answer's JSON in one document (as BODY_PART_CHARS, and for the same reason). */
export const ANSWER_PART_CHARS = BODY_PART_CHARS;

export const RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A dry run's answer too big for its job's return value: kept as long as the dry run's job (shared/queue/stage-jobs.ts dryRunJobOptions). */
export const DRY_RUN_RESULT_RETENTION_MS = 60 * 60 * 1000;

/** A stored answer whose operation holds no result to join back: never written so by this code (the result is final before the answer). */
export class MissingAnswerResultError extends Error {
  constructor(
    readonly jobId: string,
    readonly stagedOperationId: string,
  ) {
    super(`job ${jobId}: the result of its operation ${stagedOperationId} is missing`);
    this.name = 'MissingAnswerResultError';
  }
}

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
  const stored = withoutPlan(answer);
  const { answer: kept, resultLeftOut } = withoutLongResult(stored);
  return {
    ...rest,
    answer_json: JSON.stringify(kept),
    ...(resultLeftOut ? { result_from_operation: true as const } : {}),
    expires_at: expires,
  };
}

/** A step's answer without its operation's long result (`result: null` in its place), which the operation holds. */
function withoutLongResult(answer: StageAnswer): { answer: StageAnswer; resultLeftOut: boolean } {
  if (answer.outcome !== 'done' || joinedOperationId(answer) === null) return { answer, resultLeftOut: false };
  const result = answer.data.result;
  if (result === null || result === undefined || JSON.stringify(result).length <= RESULT_INLINE_LIMIT)
    return { answer, resultLeftOut: false };
  return { answer: { ...answer, data: { ...answer.data, result: null } }, resultLeftOut: true };
}

/** The answer with its operation's result back in its place. */
function withResult(answer: StageAnswer, result: unknown): StageAnswer {
  return answer.outcome === 'done' ? { ...answer, data: { ...answer.data, result } } : answer;
}

/** What a reader asks of a stored answer: `lean`, as leanAnswer gives it (`Prefer: return=minimal`, docs/reference/http-api.md §6.4). */
export interface AnswerReading {
  lean?: boolean;
}

/**
 * The stored answer of a job, its operation's fields joined back from the
 * operation (leanAnswer's when `lean`); null while there is none.
 * `stagedOperationId`, when the caller knows it (the job's return value),
 * lets both reads go out at once.
 */
export async function findJobResult(
  db: Db,
  orgId: string,
  jobId: string,
  stagedOperationId?: string,
  reading: AnswerReading = {},
): Promise<JobResultDoc | null> {
  const [found, known] = await Promise.all([
    findResult(db, orgId, jobId),
    stagedOperationId ? findStagedOperation(db, orgId, stagedOperationId) : null,
  ]);
  if (!found) return null;
  const { doc, resultFromOperation } = found;
  const operationId = joinedOperationId(doc.answer);
  if (reading.lean && doc.answer.outcome === 'done') {
    const lean = leanAnswer(doc.answer);
    if (!resultFromOperation || operationId === null) return { ...doc, answer: lean };
    // Its result alone: the plan, preconditions and context a lean answer leaves out are not read.
    const result = await findStagedOperationResult(db, orgId, operationId);
    if (result === null) throw new MissingAnswerResultError(jobId, operationId);
    return { ...doc, answer: withResult(lean, result) };
  }
  if (operationId === null) return doc;
  const op = known?._id === operationId ? known : await findStagedOperation(db, orgId, operationId);
  if (!op) return null;
  if (resultFromOperation) {
    if (!op.result) throw new MissingAnswerResultError(jobId, operationId);
    return { ...doc, answer: withOperationFields(withResult(doc.answer, op.result), op) };
  }
  return { ...doc, answer: withOperationFields(doc.answer, op) };
}

/**
 * The stored document. On FerretDB 1.x it is read in SQL by FerretDB's
 * `_id` btree and decoded here: a big plan's answer carries its context (the
 * records the plan read, 21 MB of JSON for a 10,000-transaction repair),
 * which FerretDB takes seconds of CPU to convert (docs/indexes.md "Worker
 * reads in SQL").
 */
async function findResult(
  db: Db,
  orgId: string,
  jobId: string,
): Promise<{ doc: JobResultDoc; resultFromOperation: boolean } | null> {
  const stored = (await (
    await storeAdapter(db)
  ).findOwnedById(collections(db).jobResults.collectionName, orgId, jobId)) as StoredJobResult | null;
  if (stored === null) return null;
  const parts = stored.answer_parts === undefined ? [] : await readAnswerParts(db, stored);
  return { doc: decodeJobResult(stored, parts), resultFromOperation: stored.result_from_operation === true };
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
  const {
    answer_json,
    answer,
    answer_parts: _parts,
    answer_part_id: _partId,
    result_from_operation: _fromOperation,
    ...rest
  } = stored;
  const json = parts.length > 0 ? parts.map((p) => p.answer_json).join('') : answer_json;
  return { ...rest, answer: json === undefined ? answer! : (JSON.parse(json) as StageAnswer) };
}

/**
 * The operation an answer names, whose fields the stored answer leaves out
 * (withoutPlan): a staged answer's, and a review or apply step's (`done`,
 * its data the operation); null for any other.
 */
export function joinedOperationId(answer: StageAnswer): string | null {
  if (answer.outcome === 'staged') return answer.staged_operation_id;
  if (answer.outcome === 'done' && typeof answer.data.staged_operation_id === 'string')
    return answer.data.staged_operation_id;
  return null;
}

/**
 * A stored answer with its operation's fields joined back, as every reader
 * gets it, last in its data in the order the worker wrote them: a staged
 * answer's context, plan and its hash; a review or apply step's plan,
 * preconditions and context (the whole operation, as GET shows it).
 */
function withOperationFields(
  answer: StageAnswer,
  fields: Pick<StagedOperationDoc, 'plan' | 'plan_hash' | 'preconditions' | 'context'>,
): StageAnswer {
  if (answer.outcome === 'staged') {
    const { plan_hash: _hash, ...data } = answer.data;
    return {
      ...answer,
      data: { ...data, context: fields.context ?? {}, plan: fields.plan, plan_hash: fields.plan_hash },
    };
  }
  if (answer.outcome !== 'done') return answer;
  return {
    ...answer,
    data: { ...answer.data, plan: fields.plan, preconditions: fields.preconditions, context: fields.context ?? {} },
  };
}

/**
 * The answer as findJobResult would give it back once stored, for a job's
 * return value (shared/queue/stage-jobs.ts StageJobReturn): null when its
 * JSON is longer than `maxChars`, or when it holds anything JSON and BSON
 * would not both keep as it is (undefined, a Date, NaN), so that what the
 * API answers from it is byte for byte the stored answer.
 */
export function carriedAnswer(answer: StageAnswer, maxChars: number): StageAnswer | null {
  // The answer as stored is shorter than the whole one: a big operation's is refused without writing its plan out.
  if (joinedOperationId(answer) !== null && JSON.stringify(withoutPlan(answer)).length > maxChars) return null;
  const json = JSON.stringify(answer);
  if (json.length > maxChars) return null;
  const plain = JSON.parse(json) as StageAnswer;
  if (!isDeepStrictEqual(plain, answer)) return null;
  if (joinedOperationId(plain) === null) return plain;
  const data = (
    plain as { data: Partial<Pick<StagedOperationDoc, 'plan' | 'plan_hash' | 'preconditions' | 'context'>> }
  ).data;
  return withOperationFields(withoutPlan(plain), {
    plan: data.plan,
    plan_hash: data.plan_hash!,
    preconditions: data.preconditions!,
    context: data.context ?? {},
  });
}

/** The answer as stored: without the fields its operation holds (withOperationFields joins them back); a staged answer keeps its plan's hash. */
function withoutPlan(answer: StageAnswer): StageAnswer {
  if (joinedOperationId(answer) === null) return answer;
  const { context: _context, plan: _plan, ...data } = (answer as { data: Record<string, unknown> }).data;
  if (answer.outcome === 'done') delete data.preconditions;
  return { ...answer, data } as StageAnswer;
}

/**
 * The answer a lean reader gets (`Prefer: return=minimal`): a review or apply
 * step's operation without its plan, preconditions and context; any other
 * answer whole (a staging's or a dry run's plan is what it answers).
 */
export function leanAnswer(answer: StageAnswer): StageAnswer {
  return answer.outcome === 'done' ? withoutPlan(answer) : answer;
}

export async function sweepJobResults(db: Db, now: Date): Promise<number> {
  return (await collections(db).jobResults.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
