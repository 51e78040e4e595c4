// Every collection's name and stored document type, in one place; the
// repositories beside this file are the only code that reads or writes them.
import type { Collection, Db, Document } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, InboxDocument, LedgerEntry, Org, Precondition } from '../domain/books.js';
import type { Warning } from '../warnings.js';
import type { StageAnswer } from '../queue/stage-jobs.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { ApplyJournalState, ApplyResult } from './staged-apply-state.js';

/** A domain record as stored: `_id` for `id`, and the owning `org_id` (shared/storage/documents.ts translates). */
export type Stored<T extends { id: string }> = Omit<T, 'id'> & { _id: string; org_id: string };

export type OrgDoc = Omit<Org, 'id'> & { _id: string };

export const SCOPES = ['bank:stage', 'ledger:stage', 'inbox:read', 'staged:read', 'staged:approve', 'staged:apply', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Only the SHA-256 of a secret is stored; the secret is shown once. */
export interface ApiTokenDoc {
  _id: string; // sha256 hex of the secret
  token_id: string;
  org_id: string;
  actor: string;
  scopes: Scope[];
  created_at: string;
}

export type StagedKind = 'bank_reconcile' | 'ledger_link_repair' | 'ledger_reversal';
export type { StagedStatus };

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
  /** The apply journal, written once when apply starts (docs/design/staged-lifecycle.md). */
  apply?: ApplyJournalState;
  /** What apply did (applied) or why it did not (failed, stale). */
  result?: ApplyResult;
}

/** One per key a pending operation holds; `_id` = `ORG:KEY`, so MongoDB's unique `_id` settles races. */
export interface ScopeLockDoc {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  scope_key: string;
  plan_hash: string;
  created_at: string;
}

export interface AuditEventDoc {
  _id: string;
  org_id: string;
  at: string;
  actor: string;
  request_id: string;
  staged_operation_id: string;
  from: string | null;
  to: string;
  /** The note given with the transition (approve, reject), else null; absent on events recorded before notes were kept. */
  note?: string | null;
  /** A transition that ends an apply carries the apply's result (so that it can be rolled forward). */
  result?: unknown;
}

/** `_id` derived from org + actor + key: the first request to insert it owns the key. */
export interface IdempotencyKeyDoc {
  _id: string;
  org_id: string;
  actor: string;
  request_hash: string;
  operation: string;
  job_id: string;
  request_id: string;
  created_at: string;
  expires_at: string;
}

/** The answer of a finished staging job, kept ≥ 24 h so polling and replays outlive BullMQ's own retention. */
export interface JobResultDoc {
  _id: string; // the job id
  org_id: string;
  actor: string;
  request_id: string;
  answer: StageAnswer;
  finished_at: string;
  expires_at: string;
}

/** The current version of an organisation's inbox (shared/storage/inbox-version.ts); `_id` = org id. */
export interface InboxVersionDoc {
  _id: string;
  org_id: string;
  version: string;
  changed_at: string;
}

/**
 * One materialized duplicate overview, `_id` = `ORG:VERSION` (docs/design/duplicate-overview.md):
 * inserted as the claim to compute it, `ready` once its chunks are written.
 */
export interface DuplicateOverviewDoc {
  _id: string;
  org_id: string;
  version: string;
  state: 'computing' | 'ready';
  claimed_at: string;
  ready_at?: string;
  group_count?: number;
  chunk_count?: number;
  /** ChunkSummary[] as one JSON string (see DuplicateOverviewChunkDoc for why). */
  chunks_json?: string;
}

/**
 * One chunk of an overview's groups, `_id` = `OVERVIEW_ID:N`. The pieces
 * (GroupPiece[]) are stored as one JSON string: FerretDB converts a nested
 * document field by field on every read (about 20–50 ms for 50 groups here),
 * a string it passes through.
 */
export interface DuplicateOverviewChunkDoc {
  _id: string;
  org_id: string;
  overview_id: string;
  n: number;
  pieces_json: string;
}

/** Typed handles on every collection; the only place collection names are written. */
export function collections(db: Db) {
  const c = <T extends Document>(name: string): Collection<T> => db.collection<T>(name);
  return {
    orgs: c<OrgDoc>('orgs'),
    ledgerEntries: c<Stored<LedgerEntry>>('ledger_entries'),
    bankAccounts: c<Stored<BankAccount>>('bank_accounts'),
    bankTransactions: c<Stored<BankTransaction>>('bank_transactions'),
    bankLinks: c<Stored<BankLink>>('bank_links'),
    inboxDocuments: c<Stored<InboxDocument>>('inbox_documents'),
    stagedOperations: c<StagedOperationDoc>('staged_operations'),
    scopeLocks: c<ScopeLockDoc>('scope_locks'),
    apiTokens: c<ApiTokenDoc>('api_tokens'),
    auditEvents: c<AuditEventDoc>('audit_events'),
    idempotencyKeys: c<IdempotencyKeyDoc>('idempotency_keys'),
    jobResults: c<JobResultDoc>('job_results'),
    inboxVersions: c<InboxVersionDoc>('inbox_versions'),
    duplicateOverviews: c<DuplicateOverviewDoc>('duplicate_overviews'),
    duplicateOverviewChunks: c<DuplicateOverviewChunkDoc>('duplicate_overview_chunks'),
  };
}

export type Collections = ReturnType<typeof collections>;
