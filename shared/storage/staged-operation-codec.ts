// How a staged operation is stored (docs/design/staged-lifecycle.md "How an
// operation is stored"): its large, never-queried fields — the plan, the
// preconditions, the context, the apply journal and the result — as JSON
// text, one string each, beside the fields the store filters on (org, status,
// kind, dates, the scope key). FerretDB converts every value of a document
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
import type { StagedOperationDoc } from './collections.js';

/** The fields stored as JSON text, and the stored field of each. */
const ENCODED = { plan: 'plan_json', preconditions: 'preconditions_json', context: 'context_json', apply: 'apply_json', result: 'result_json' } as const;
type Encoded = keyof typeof ENCODED;
export type EncodedSet = Partial<Pick<StagedOperationDoc, 'apply' | 'result'>>;

/** A staged operation as stored. The optional document fields are those of an operation stored before the codec. */
export type StoredStagedOperation = Omit<StagedOperationDoc, Encoded> & Partial<Pick<StagedOperationDoc, Encoded>> & {
  plan_json?: string;
  preconditions_json?: string;
  context_json?: string;
  apply_json?: string;
  result_json?: string;
  /** The body document holding plan_json, preconditions_json and context_json (absent: they are inline). */
  body_id?: string;
};

/** What an operation never changes after staging, as its body document stores it. */
export interface StoredOperationBody {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  plan_json: string;
  preconditions_json: string;
  context_json?: string;
}

/** An operation whose body document is not there, or not its own: never written so by this code (a body is inserted before its operation). */
export class MissingOperationBodyError extends Error {
  constructor(readonly stagedOperationId: string, readonly bodyId: string) {
    super(`staged operation ${stagedOperationId}: its body ${bodyId} is missing`);
    this.name = 'MissingOperationBodyError';
  }
}

/** Plan, preconditions and context of at most this many characters of JSON stay inline in the operation. */
export const BODY_INLINE_LIMIT = 64 * 1024;

/**
 * A new operation as stored: inline when its plan, preconditions and context
 * are small (body null), else two documents: its body (`bodyId`, to be
 * inserted first) and the operation, which names the body. A fresh `bodyId`
 * per write: a retried staging that lost to its own earlier attempt never
 * pairs that attempt's operation with another plan.
 */
export function encodeStaging(doc: StagedOperationDoc, bodyId: string, inlineLimit = BODY_INLINE_LIMIT): { op: StoredStagedOperation; body: StoredOperationBody | null } {
  const stored = encodeOperation(doc);
  const { plan_json: plan, preconditions_json: preconditions, context_json: context, ...op } = stored;
  if ((plan?.length ?? 0) + (preconditions?.length ?? 0) + (context?.length ?? 0) <= inlineLimit) return { op: stored, body: null };
  return {
    op: { ...op, body_id: bodyId },
    body: { _id: bodyId, org_id: doc.org_id, staged_operation_id: doc._id, plan_json: plan!, preconditions_json: preconditions!, ...(context === undefined ? {} : { context_json: context }) },
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

/** The operation as its public shape; `body`: its body document, needed when it has `body_id`. */
export function decodeOperation(stored: StoredStagedOperation, body?: StoredOperationBody | null): StagedOperationDoc {
  const doc: Record<string, unknown> = { ...stored };
  if (stored.body_id !== undefined) {
    if (!body || body._id !== stored.body_id || body.org_id !== stored.org_id) throw new MissingOperationBodyError(stored._id, stored.body_id);
    delete doc.body_id;
    doc.plan_json = body.plan_json;
    doc.preconditions_json = body.preconditions_json;
    if (body.context_json !== undefined) doc.context_json = body.context_json;
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
