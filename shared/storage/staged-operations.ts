import type { Db } from 'mongodb';
import type { Precondition } from '../domain/books.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { ApplyJournalState, ApplyResult } from './staged-apply-state.js';
import type { Warning } from '../envelope.js';
import { collections } from './collections.js';

export type StagedKind = 'bank_reconcile' | 'ledger_link_repair' | 'ledger_reversal';
export type { StagedStatus } from '../domain/staged-transitions.js';

/** States in which an operation still holds its scope (an apply under way holds it to the end). */
export const PENDING_STATUSES: readonly StagedStatus[] = ['staged', 'approved', 'applying'];

/** How long a staged operation waits for approval by default (config STAGED_TTL_HOURS). */
export const STAGED_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** One transition; `request_id` is absent on operations staged before it was recorded. */
export interface HistoryItem { at: string; actor: string; from: StagedStatus | null; to: StagedStatus; note: string | null; request_id?: string }

export interface StagedOperationDoc {
  _id: string;
  org_id: string;
  kind: StagedKind;
  status: StagedStatus;
  created_by: string;
  created_at: string;
  expires_at: string;
  request_id: string;
  idempotency_key: string | null;
  scope_key: string;
  input: Record<string, unknown>;
  plan: unknown;
  plan_hash: string;
  preconditions: Precondition[];
  warnings: Warning[];
  history: HistoryItem[];
  /** The apply journal, written once when apply starts (docs/staged-lifecycle.md). */
  apply?: ApplyJournalState;
  /** What apply did (applied) or why it did not (failed, stale). */
  result?: ApplyResult;
}

/** The public shape of a staged operation (DESIGN §5.5). */
export interface StagedOperationView {
  staged_operation_id: string;
  kind: StagedKind;
  status: StagedStatus;
  created_by: string;
  created_at: string;
  expires_at: string;
  input: Record<string, unknown>;
  plan: unknown;
  plan_hash: string;
  history: HistoryItem[];
}

export function toView(doc: StagedOperationDoc): StagedOperationView {
  return {
    staged_operation_id: doc._id,
    kind: doc.kind,
    status: doc.status,
    created_by: doc.created_by,
    created_at: doc.created_at,
    expires_at: doc.expires_at,
    input: doc.input,
    plan: doc.plan,
    plan_hash: doc.plan_hash,
    history: doc.history,
  };
}

/** Insert once: a retried job finds its own operation already there and gets it back. */
export async function insertStagedOperation(db: Db, doc: StagedOperationDoc): Promise<StagedOperationDoc> {
  const ops = collections(db).stagedOperations;
  try {
    await ops.insertOne(doc);
    return doc;
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
    const existing = await ops.findOne({ _id: doc._id, org_id: doc.org_id });
    if (!existing) throw err;
    return existing;
  }
}

export async function findStagedOperation(db: Db, orgId: string, id: string): Promise<StagedOperationDoc | null> {
  return collections(db).stagedOperations.findOne({ _id: id, org_id: orgId });
}

export async function findStagedOperations(db: Db, orgId: string, ids: string[]): Promise<StagedOperationDoc[]> {
  if (ids.length === 0) return [];
  return collections(db).stagedOperations.find({ org_id: orgId, _id: { $in: ids } }).toArray();
}
