// How a staged operation is stored (docs/design/staged-lifecycle.md "How an
// operation is stored"): its large, never-queried fields — the plan, the
// preconditions, the context, the apply journal and the result — as JSON
// text, one string each, beside the fields the store filters on (org, status,
// kind, dates, the subject key). FerretDB converts every value of a document
// on each read and on each write, and rewrites the whole document on every
// update: a statement import of 990 transactions is some 25,000 values,
// converted again on each status transition (approve, apply start, apply
// end; ~0.3–0.7 s each). As text each field is one value. Nothing filters on
// these fields, and the public shape is unchanged: the codec is the only
// place that knows. Operations stored before the codec (the fields as
// documents) still read.
//
// A new operation's plan, preconditions and context — which never change
// after staging — are kept in a body document of their own
// (`staged_operation_bodies`, written once, before the operation, which names
// it by `body_id`): FerretDB rewrites a whole document on every update, and a
// status transition of an operation that held a 10,000-entry import's plan
// rewrote its 4 MB of text (0.3–0.45 s, twice per apply). A small operation
// keeps them inline (BODY_INLINE_LIMIT): rewriting a few KB costs less than
// the second insert a body is on every staging call. Operations stored
// with those fields inline (small ones, and all before the bodies) read the same.
//
// A body past BODY_PART_CHARS is cut into parts, one document each, which the
// operation counts (`body_parts`): no document may pass MongoDB's 16 MiB, and
// a 15,000-transaction repair's body is some 19 MB of JSON.
//
// A result past RESULT_INLINE_LIMIT (an apply's, which lists every change: 3 MB
// of JSON for a 10,000-transaction repair) is not copied onto the operation:
// the transition's claim, written first, holds it (`result_json`), and the
// operation names that claim (`result_claim`). The end transition then rewrites
// a document without it, and the result is stored once.
import type { EncodedField, StagedOperationDoc, StoredOperationBody, StoredStagedOperation } from './collections.js';
import { joinFields, splitFields } from './text-parts.js';

/** The fields stored as JSON text, and the stored field of each. */
const ENCODED = {
  plan: 'plan_json',
  preconditions: 'preconditions_json',
  context: 'context_json',
  apply: 'apply_json',
  result: 'result_json',
} as const satisfies Record<EncodedField, string>;
type Encoded = EncodedField;
export type EncodedSet = Partial<Pick<StagedOperationDoc, 'apply' | 'result'>>;

const BODY_FIELDS = ['plan_json', 'preconditions_json', 'context_json'] as const;

/** An operation whose body document is not there, or not its own: never written so by this code (a body is inserted before its operation). */
export class MissingOperationBodyError extends Error {
  constructor(
    readonly stagedOperationId: string,
    readonly bodyId: string,
  ) {
    super(`staged operation ${stagedOperationId}: its body ${bodyId} is missing`);
    this.name = 'MissingOperationBodyError';
  }
}

/** A result of at most this many characters of JSON is stored on the operation; a longer one stays in its claim. */
export const RESULT_INLINE_LIMIT = 64 * 1024;

/** Plan, preconditions and context of at most this many characters of JSON stay inline in the operation. */
export const BODY_INLINE_LIMIT = 64 * 1024;

/**
 * At most this many characters of JSON in one body document: at most 12 MiB
 * as UTF-8 (three bytes a character at most; a surrogate pair is four bytes
 * for two), under MongoDB's 16 MiB, which the Node driver enforces on
 * FerretDB too. A body is cut only past it: a repair's body stays one
 * document up to about 3,000 transactions, as before.
 */
export const BODY_PART_CHARS = 4 * 1024 * 1024;

/** The ids of a body's documents, in part order: the body's own id, then `<body id>/<part>`. */
export function bodyPartIds(bodyId: string, parts = 1): string[] {
  return Array.from({ length: parts }, (_, part) => (part === 0 ? bodyId : `${bodyId}/${part}`));
}

/** The ids of the body documents a stored operation names, in part order; none when its fields are inline. */
export function storedBodyIds(stored: Pick<StoredStagedOperation, 'body_id' | 'body_parts'>): string[] {
  return stored.body_id === undefined ? [] : bodyPartIds(stored.body_id, stored.body_parts);
}

/**
 * A new operation as stored: inline when its plan, preconditions and context
 * are small (no body), else its body's documents (`bodyId`, to be inserted
 * first: one, or parts of at most `partChars` characters) and the
 * operation, which names the body and counts its parts. A fresh `bodyId`
 * per write: a retried staging that lost to its own earlier attempt never
 * pairs that attempt's operation with another plan.
 */
export function encodeStaging(
  doc: StagedOperationDoc,
  bodyId: string,
  inlineLimit = BODY_INLINE_LIMIT,
  partChars = BODY_PART_CHARS,
): { op: StoredStagedOperation; bodies: StoredOperationBody[] } {
  const stored = encodeOperation(doc);
  const { plan_json: _plan, preconditions_json: _preconditions, context_json: _context, ...op } = stored;
  const fields = BODY_FIELDS.flatMap((key) => (stored[key] === undefined ? [] : [[key, stored[key]] as const]));
  if (fields.reduce((n, [, text]) => n + text.length, 0) <= inlineLimit) return { op: stored, bodies: [] };
  const owner = { org_id: doc.org_id, staged_operation_id: doc._id };
  const slices = splitFields(fields, partChars);
  // One part holds every field whole: the body of one document, as before parts.
  if (slices.length === 1) return { op: { ...op, body_id: bodyId }, bodies: [{ _id: bodyId, ...owner, ...slices[0] }] };
  const ids = bodyPartIds(bodyId, slices.length);
  return {
    op: { ...op, body_id: bodyId, body_parts: slices.length },
    bodies: slices.map((slice, part) => ({ _id: ids[part]!, ...owner, part, ...slice })),
  };
}

export function encodeOperation(doc: StagedOperationDoc): StoredStagedOperation {
  const { plan, preconditions, context, apply, result, ...rest } = doc;
  return { ...rest, ...encodeFields({ plan, preconditions, context, apply, result }) };
}

/** The `$set` of a transition's own fields (the journal, the result), as stored. */
export function encodeSet(set: EncodedSet): Partial<Pick<StoredStagedOperation, 'apply_json' | 'result_json'>> {
  return encodeFields(set);
}

/** Each field present as its stored text field; an absent one (no journal before apply) stays absent. */
function encodeFields(fields: Partial<Pick<StagedOperationDoc, Encoded>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, stored] of Object.entries(ENCODED) as Array<[Encoded, string]>) {
    if (fields[key] !== undefined) out[stored] = JSON.stringify(fields[key]);
  }
  return out;
}

/** An operation whose result's claim is not there, or not its own: never written so by this code (the claim is inserted first). */
export class MissingResultClaimError extends Error {
  constructor(
    readonly stagedOperationId: string,
    readonly claimId: string,
  ) {
    super(`staged operation ${stagedOperationId}: the claim ${claimId} holding its result is missing`);
    this.name = 'MissingResultClaimError';
  }
}

/** A result's stored text, or where it is: the claim `claimId` already holds it when it is long. */
export function encodeResult(
  resultJson: string | undefined,
  claimId: string,
  inlineLimit = RESULT_INLINE_LIMIT,
): { result_json?: string; result_claim?: string } {
  if (resultJson === undefined) return {};
  return resultJson.length > inlineLimit ? { result_claim: claimId } : { result_json: resultJson };
}

/** The claim an operation's result is read from, for decodeOperation. */
export interface ResultClaim {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  result_json?: string;
  result?: unknown;
}

/**
 * The operation as its public shape; `bodies`: its body's documents in part
 * order (bodyPartIds), needed when it has `body_id`; `claim`: the claim
 * holding its result, needed when it has `result_claim`. Every part must be
 * there and the operation's organisation's: an operation is never read with
 * part of its plan, nor without its result.
 */
export function decodeOperation(
  stored: StoredStagedOperation,
  bodies: ReadonlyArray<StoredOperationBody | null | undefined> = [],
  claim: ResultClaim | null = null,
): StagedOperationDoc {
  const doc: Record<string, unknown> = { ...stored };
  if (stored.result_claim !== undefined) {
    const own =
      claim !== null &&
      claim._id === stored.result_claim &&
      claim.org_id === stored.org_id &&
      claim.staged_operation_id === stored._id;
    const text = own
      ? (claim.result_json ?? (claim.result === undefined ? undefined : JSON.stringify(claim.result)))
      : undefined;
    if (text === undefined) throw new MissingResultClaimError(stored._id, stored.result_claim);
    delete doc.result_claim;
    doc.result_json = text;
  }
  if (stored.body_id !== undefined) {
    const ids = storedBodyIds(stored);
    const own = ids.flatMap((id, part) => {
      const body = bodies[part];
      return body && body._id === id && body.org_id === stored.org_id ? [body] : [];
    });
    if (own.length !== ids.length) throw new MissingOperationBodyError(stored._id, stored.body_id);
    delete doc.body_id;
    delete doc.body_parts;
    Object.assign(doc, joinFields(own, BODY_FIELDS));
  }
  for (const [key, text] of Object.entries(ENCODED) as Array<[Encoded, keyof StoredStagedOperation]>) {
    const value = doc[text];
    delete doc[text];
    if (value !== undefined) doc[key] = JSON.parse(value as string) as unknown;
  }
  return doc as unknown as StagedOperationDoc;
}

/** A claim's journal or result (shared/storage/staged-operation-status.ts): stored as text, or as a document by an older claim. */
export const encodeClaimField = (value: unknown): string => JSON.stringify(value);
export const decodeClaimField = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
