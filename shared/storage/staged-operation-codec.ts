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
};

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

export function decodeOperation(stored: StoredStagedOperation): StagedOperationDoc {
  const doc: Record<string, unknown> = { ...stored };
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
