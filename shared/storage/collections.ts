// Every collection's name and stored document type, in one place; the
// repositories beside this file are the only code that reads or writes them.
import type { Collection, Db, Document } from 'mongodb';
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  InboxDocument,
  LedgerAccount,
  LedgerEntry,
  Org,
  Precondition,
} from '../domain/books.js';
import type { CsvMapping } from '../kinds/statement-import/csv.js';
import type { Warning } from '../warnings.js';
import type { PlanContext } from '../domain/plan-context.js';
import type { StageAnswer } from '../contract/staging-answer.js';
import type { StagedKind } from '../domain/staged-kind.js';
import type { StagedStatus } from '../domain/staged-transitions.js';
import type { EventType } from '../domain/events.js';
import type { StagedOperationDetail } from '../contract/staged-operation.js';
import type { TokenScope } from '../domain/token-scopes.js';
import type { ApplyJournalState, ApplyResult } from './staged-apply-state.js';
import type { ApprovalRule, ApprovalState, UnattendedAllowance } from '../domain/approval-policy.js';

/** A domain record as stored: `_id` for `id`, and the owning `org_id` (shared/storage/documents.ts translates). */
export type Stored<T extends { id: string }> = Omit<T, 'id'> & { _id: string; org_id: string };

export type OrgDoc = Omit<Org, 'id'> & { _id: string };

/**
 * One account of an organisation's chart (docs/guide/importing-books.md
 * "Chart of accounts"), `_id` = `ORG:CODE` (a code holds no `:`): one per
 * org and code. Written by the books import like the other book records.
 */
export type LedgerAccountDoc = LedgerAccount & { _id: string; org_id: string; version: number };

/** Only the SHA-256 of a secret is stored; the secret is shown once. */
export interface ApiTokenDoc {
  _id: string; // sha256 hex of the secret
  token_id: string;
  org_id: string;
  actor: string;
  scopes: TokenScope[];
  /** Created as an agent's token (`admin tokens create --agent`); absent on tokens made before the flag: not an agent's. */
  agent?: boolean;
  created_at: string;
}

export type { StagedStatus };

/**
 * One version of an organisation's approval policy (docs/design/staged-lifecycle.md
 * "Approval policies"), `_id` = `ORG:VERSION` (approvalPolicyId): inserted once by
 * the apply of the change that made it; the highest version is in force.
 */
export interface ApprovalPolicyDoc {
  _id: string;
  org_id: string;
  policy_version: number;
  rules: ApprovalRule[];
  agents_may_approve: boolean;
  unattended: UnattendedAllowance[];
  /** Null on a version a revert wrote back: its reader takes them from the revert (shared/storage/approval-policies.ts). */
  updated_at: string | null;
  updated_by_operation: string | null;
  /** On a version a revert wrote back: the policy change it reverted (docs/design/staged-lifecycle.md "Reverts"). */
  reverts?: string;
  /** The record's own version (every journal insert starts at 1). */
  version: number;
}

/** One transition; `request_id` is absent on operations staged before it was recorded. */
/**
 * `request_id` is diagnostic (the client may choose it); `claim_id` is the
 * server-made identity of the job that claimed the transition (its BullMQ job
 * id, or the sweep's own), absent on items written before claims had one.
 */
export interface HistoryItem {
  at: string;
  actor: string;
  from: StagedStatus | null;
  to: StagedStatus;
  note: string | null;
  request_id?: string;
  claim_id?: string;
}

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
  /** The records the plan names, read at staging time, outside the plan and its hash (docs/design/staged-lifecycle.md "Context"); absent on operations staged before it existed. */
  context?: PlanContext;
  /** The applied revert of this operation (docs/design/staged-lifecycle.md "Reverts"), set once that revert is applied. */
  reverted_by?: string;
  /**
   * What approving it takes, recorded at staging (docs/design/staged-lifecycle.md "Approval policies").
   * As stored, `given` holds only the policy's own (unattended) approval; each actor's approval is a
   * document of `approvals`, merged in when the operation is read for an answer (shared/storage/approvals.ts).
   * Absent on operations staged before policies.
   */
  approval?: ApprovalState;
  /**
   * How many times apply sent it back to `staged` because the approval policy changed
   * (docs/design/staged-lifecycle.md "Apply checks the policy again"); absent: 0. Each round claims its
   * transitions under ids of its own.
   */
  round?: number;
}

/**
 * One step of an actor's unattended total of a UTC day (shared/storage/unattended-reservations.ts),
 * `_id` = `KEY#SEQ`: the unique insert lets one staging build on each step.
 */
export interface UnattendedReservationDoc {
  _id: string;
  org_id: string;
  /** `ORG:ACTOR:DAY`. */
  key: string;
  seq: number;
  staged_operation_id: string;
  amount_minor: number;
  /** The day's total after this step. */
  total_minor: number;
  at: string;
}

/**
 * An approval of a staged operation (docs/design/staged-lifecycle.md "Approval
 * policies"), two documents each, both unique inserts: the actor's, `_id`
 * derived from (operation, actor), `slot` null, so each actor approves once;
 * and the slot it counts in, `_id` derived from (operation, slot N), so two
 * actors at once take two slots and both count, and no more approvals count
 * than the operation requires.
 */
export interface ApprovalDoc {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  /** 1, 2, …: the approval's place in `approval.given` after the policy's own; null on the actor's document. */
  slot: number | null;
  actor: string;
  /** ISO 8601 UTC. */
  at: string;
  /** The actor counted as an agent when it approved (its token, or its name). */
  agent: boolean;
  note: string | null;
  request_id: string;
  /** The approving job: its retry recognises its own approval. */
  claim_id: string;
}

/**
 * One per key a pending operation holds: `key` = `ORG:KEY` under a unique
 * index settles races; `_id` = `ORG:KEY#OPERATION` names the holder
 * (shared/storage/plan-locks.ts).
 */
export interface PlanLockDoc {
  _id: string;
  key: string;
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
  /** A transition that ends an apply carries the apply's result (so that it can be rolled forward), as JSON text (staged-operation-codec.ts). */
  result_json?: string;
  /** approved → applying carries the journal it stores, so that anyone can roll the claim forward (docs/operating/reliability.md "Recovery bounds"), as JSON text. */
  apply_json?: string;
  /** The same, as documents: claims written before they were stored as text. */
  result?: unknown;
  apply?: unknown;
  /** Who holds a transition claim: server-made (the claiming job's id), never the client's request id. */
  claim_id?: string;
  /** The operation's round the claim was made in (StagedOperationDoc.round); absent: 0. */
  round?: number;
  /** A return to `staged` (the policy changed at apply) carries the approval it writes, as JSON text. */
  approval_json?: string;
  /** When the claim was inserted (ISO 8601); a claim its holder has not written for CLAIM_WAIT_MS is rolled forward by others. */
  claimed_at?: string;
  /** The feed's event of this transition (docs/reference/webhooks.md), written with the claim; removed after the retention. */
  event?: StoredEventDoc;
  /** `ORG:⌊sequence / FEED_BLOCK⌋` of the event: the feed reads a block of events by this one equality (shared/storage/events.ts). */
  feed_block?: string;
}

/** One reserved event sequence number, `_id` = `ORG:N`: the unique insert makes N one transition's (docs/reference/webhooks.md). */
export interface EventSequenceDoc {
  _id: string;
  org_id: string;
  sequence: number;
  at: string;
}

/** A webhook endpoint (docs/reference/webhooks.md); the signing secret is stored encrypted (shared/webhook-secret.ts). */
export interface WebhookEndpointDoc {
  _id: string;
  org_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  secret_encrypted: string;
  created_by: string;
  created_at: string;
  /** The sequence of the last event delivered (or given up); events after it are still to go. */
  delivered_through: number;
  /** The event being retried, while one is. */
  retry: { event_id: string; sequence: number; attempts: number; next_at: string } | null;
}

/** One delivery attempt of one event to one endpoint. */
export interface WebhookDeliveryDoc {
  _id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  sequence: number;
  attempt: number;
  at: string;
  outcome: 'delivered' | 'failed' | 'given_up';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
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

/**
 * A job result as stored: the answer as its JSON text (an apply's answer holds the whole operation, plan and result;
 * FerretDB converts each value of a document it stores, one string is one value: staged-operation-codec.ts), or as a
 * document in a result stored before.
 */
export type StoredJobResult = Omit<JobResultDoc, 'answer'> & {
  answer_json?: string;
  answer?: StageAnswer;
  /** The answer's operation's result (past RESULT_INLINE_LIMIT) is read from the operation: the answer holds `result: null` in its place. */
  result_from_operation?: true;
  /** An answer too big for one document: its JSON is in this many parts (JobResultPartDoc), ids `<answer_part_id>/<part>`. */
  answer_parts?: number;
  answer_part_id?: string;
};

/** A slice of a stored answer too big for one document, in `job_results` beside its answer (swept with it by `expires_at`). */
export interface JobResultPartDoc {
  _id: string;
  org_id: string;
  /** The job whose answer this is a slice of. */
  part_of: string;
  part: number;
  answer_json: string;
  expires_at: string;
}

/**
 * A statement file on its way to the worker (shared/storage/statement-uploads.ts), in
 * `statement_uploads`: the upload (`_id` = `upload`, with `sha256`, `bytes`, `parts`,
 * `part_id`) and its parts (`content_base64`, ids `<part_id>/<part>`), all
 * carrying `upload` and swept by `expires_at`.
 */
export interface StatementUploadDoc {
  _id: string;
  org_id: string;
  upload: string;
  sha256?: string;
  bytes?: number;
  parts?: number;
  part_id?: string;
  part?: number;
  content_base64?: string;
  expires_at: string;
}

/** One part of a books export on its way from the worker to the API (shared/storage/book-exports.ts); `_id` = `EXPORT/PART`. */
export interface BookExportPartDoc {
  _id: string;
  org_id: string;
  export_id: string;
  part: number;
  text: string;
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
 * inserted as the lease to compute it, `ready` once its chunks are written.
 */
export interface DuplicateOverviewDoc {
  _id: string;
  org_id: string;
  version: string;
  state: 'computing' | 'ready';
  /** When the lease was taken (stored name kept for existing data: docs/design/architecture.md "Glossary"). */
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

/**
 * A set of inbox documents resolved as not duplicates of each other
 * (docs/design/duplicate-overview.md "Dismissals"), written by the apply of an
 * `inbox_duplicates_resolve` plan. `_id` = `ORG:` + the hash of the sorted ids:
 * one per org and set.
 */
export interface DuplicateDismissalDoc {
  _id: string;
  org_id: string;
  /** Sorted by id. */
  document_ids: string[];
  group_id: string;
  staged_operation_id: string;
  note: string | null;
  created_at: string;
  created_by: string;
  version: number;
}

/**
 * A bank account's saved CSV mapping (docs/guide/statement-import.md "Saved CSV
 * mapping"): `_id` = the bank account's id; written by `_id` and `version`.
 */
/**
 * A closed period (docs/design/staged-lifecycle.md "Closed periods"), `_id` = `ORG:THROUGH`: inserted by the
 * apply of a period close (shared/kinds/period-close/journal.ts), never changed.
 */
export interface ClosedPeriodDoc {
  _id: string;
  org_id: string;
  version: number;
  through: string;
  closed_at: string;
  approved_by: string;
  /** shared/domain/period-hash.ts of the period's records when it was closed. */
  hash: string;
  staged_operation_id: string;
  lock_date_before: string | null;
}

export interface CsvMappingDoc {
  _id: string;
  org_id: string;
  csv_mapping: CsvMapping;
  updated_at: string;
  updated_by: string;
  version: number;
}

/**
 * A match suggestion a person or agent declined for one bank transaction
 * (docs/reference/http-api.md §8.2): an entry or a document that is never
 * suggested for it again. `_id` = `ORG:TRANSACTION:le:ENTRY` or
 * `ORG:TRANSACTION:doc:DOCUMENT`: declining twice is one decline.
 */
export interface MatchDeclineDoc {
  _id: string;
  org_id: string;
  bank_transaction_id: string;
  ledger_entry_id: string | null;
  document_id: string | null;
  created_at: string;
  created_by: string;
}

/**
 * What a posted entry has left open once its links are taken off
 * (docs/design/entry-open-amounts.md): `_id` is the entry's id. Derived from
 * the entry and its links; the match suggestions read their candidates here.
 */
export interface EntryOpenAmountDoc {
  _id: string;
  org_id: string;
  currency: string;
  direction: 'in' | 'out';
  open_minor: number;
  open_amount_minor: number;
  counterparty_id: string;
  entry_date: string;
  reference: string;
}

/** An organisation whose open amounts were computed whole once (docs/design/entry-open-amounts.md "Filling"): `_id` is the org's id. */
export interface EntryOpenFillDoc {
  _id: string;
  org_id: string;
  /** The rule the organisation's rows were filled by (OPEN_AMOUNTS_FORMAT, shared/storage/entry-open-amounts.ts). */
  format?: number;
}

/** Typed handles on every collection; the only place collection names are written. */
/** The fields of a staged operation stored as JSON text (shared/storage/staged-operation-codec.ts). */
export type EncodedField = 'plan' | 'preconditions' | 'context' | 'apply' | 'result';

/** A staged operation as stored. The optional document fields are those of an operation stored before the codec. */
export type StoredStagedOperation = Omit<StagedOperationDoc, EncodedField> &
  Partial<Pick<StagedOperationDoc, EncodedField>> & {
    plan_json?: string;
    preconditions_json?: string;
    context_json?: string;
    apply_json?: string;
    result_json?: string;
    /** The body document holding plan_json, preconditions_json and context_json (absent: they are inline). */
    body_id?: string;
    /** How many documents the body is cut into (absent: one), their ids bodyPartIds(body_id, body_parts). */
    body_parts?: number;
    /** A result past RESULT_INLINE_LIMIT: the `_id` of the transition's claim (an audit event), which holds it as `result_json`. */
    result_claim?: string;
  };

/**
 * What an operation never changes after staging, as its body document stores
 * it. A body cut into parts (`part` 1 and on) holds in each part a slice of
 * some of the three fields, in field order (shared/storage/text-parts.ts).
 */
export interface StoredOperationBody {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  /** This document's place among the body's parts; absent on a body of one document. */
  part?: number;
  plan_json?: string;
  preconditions_json?: string;
  context_json?: string;
}

/** A version reservation on a book record (shared/storage/version-reservations.ts). */
export interface VersionReservationDoc {
  _id: string;
  org_id: string;
  /** `COLLECTION/ID`: every reservation ever made on the record. */
  record: string;
  version: number;
  holder: string;
  at: string;
}

/** One step of an apply's lease chain (shared/storage/staged-operation-status.ts). */
export interface ApplyLeaseStepDoc {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  seq: number;
  owner: string;
  lease_until: string;
  done: number;
  undone: number;
  phase: ApplyJournalState['phase'];
  conflict: ApplyJournalState['conflict'];
}

/**
 * One part of an operation's apply journal (shared/storage/apply-journal-parts.ts):
 * `_id` = `<journal id>#<seq>`, the journal id `<operation id>:<uuid>` fresh
 * for each apply start; its writes as JSON text.
 */
export interface ApplyJournalPartDoc {
  _id: string;
  org_id: string;
  staged_operation_id: string;
  journal_id: string;
  seq: number;
  writes_json: string;
}

/** The staged operation as an event carries it: the view GET answers, without `plan`, `preconditions` and `context` (all can be large), and without its amount. */
export type EventOperationView = Omit<
  StagedOperationDetail,
  'plan' | 'preconditions' | 'context' | 'amount_minor' | 'currency'
>;

export interface StoredEvent {
  id: string;
  type: EventType;
  created_at: string;
  sequence: number;
  data: { staged_operation: EventOperationView };
}

/**
 * An event as its claim stores it: `data` as JSON text (`data_json`), one
 * string for the store to carry. FerretDB 1.24 converts every value of a
 * document on each write, and an applied import's event lists each change
 * (9,900 at the bench's size); the fields the feed filters on stay values.
 * Events stored before carry `data` itself; both read the same (readEvent).
 * `result_in_claim`: the operation's `result` is its claim's `result_json`
 * (an apply's result lists every change: stored once, not twice in one
 * insert); `data_json` then holds `result: null` in its place.
 */
export type StoredEventDoc = Omit<StoredEvent, 'data'> & { result_in_claim?: true } & (
    { data_json: string; data?: undefined } | { data: StoredEvent['data']; data_json?: undefined }
  );

/**
 * Every collection of `db`, made once per Db and kept: the driver's
 * `db.collection()` resolves its options each time, and this was called
 * several times per job (≈ 4% of a worker's CPU in the round-trip profile,
 * docs/design/performance.md). A Collection holds no state of its own.
 */
export function collections(db: Db): Collections {
  let made = byDb.get(db);
  if (!made) {
    made = makeCollections(db);
    byDb.set(db, made);
  }
  return made;
}

const byDb = new WeakMap<Db, Collections>();

function makeCollections(db: Db) {
  const c = <T extends Document>(name: string): Collection<T> => db.collection<T>(name);
  return {
    orgs: c<OrgDoc>('orgs'),
    ledgerEntries: c<Stored<LedgerEntry>>('ledger_entries'),
    bankAccounts: c<Stored<BankAccount>>('bank_accounts'),
    bankTransactions: c<Stored<BankTransaction>>('bank_transactions'),
    bankLinks: c<Stored<BankLink>>('bank_links'),
    inboxDocuments: c<Stored<InboxDocument>>('inbox_documents'),
    ledgerAccounts: c<LedgerAccountDoc>('ledger_accounts'),
    stagedOperations: c<StoredStagedOperation>('staged_operations'),
    stagedOperationBodies: c<StoredOperationBody>('staged_operation_bodies'),
    planLocks: c<PlanLockDoc>('scope_locks'),
    /** Stored under its earlier name, kept for existing data (docs/design/architecture.md "Glossary"). */
    versionReservations: c<VersionReservationDoc>('record_claims'),
    applyLeases: c<ApplyLeaseStepDoc>('apply_leases'),
    applyJournalParts: c<ApplyJournalPartDoc>('apply_journal_parts'),
    apiTokens: c<ApiTokenDoc>('api_tokens'),
    auditEvents: c<AuditEventDoc>('audit_events'),
    eventSequences: c<EventSequenceDoc>('event_sequences'),
    webhookEndpoints: c<WebhookEndpointDoc>('webhook_endpoints'),
    webhookDeliveries: c<WebhookDeliveryDoc>('webhook_deliveries'),
    idempotencyKeys: c<IdempotencyKeyDoc>('idempotency_keys'),
    jobResults: c<StoredJobResult>('job_results'),
    /** The same collection: the parts of answers too big for one document. */
    jobResultParts: c<JobResultPartDoc>('job_results'),
    inboxVersions: c<InboxVersionDoc>('inbox_versions'),
    duplicateOverviews: c<DuplicateOverviewDoc>('duplicate_overviews'),
    duplicateOverviewChunks: c<DuplicateOverviewChunkDoc>('duplicate_overview_chunks'),
    duplicateDismissals: c<DuplicateDismissalDoc>('duplicate_dismissals'),
    bankCsvMappings: c<CsvMappingDoc>('bank_csv_mappings'),
    statementUploads: c<StatementUploadDoc>('statement_uploads'),
    bookExports: c<BookExportPartDoc>('book_exports'),
    closedPeriods: c<ClosedPeriodDoc>('closed_periods'),
    matchDeclines: c<MatchDeclineDoc>('match_declines'),
    approvalPolicies: c<ApprovalPolicyDoc>('approval_policies'),
    approvals: c<ApprovalDoc>('approvals'),
    unattendedReservations: c<UnattendedReservationDoc>('unattended_reservations'),
    entryOpenAmounts: c<EntryOpenAmountDoc>('entry_open_amounts'),
    entryOpenFills: c<EntryOpenFillDoc>('entry_open_fills'),
  };
}

export type Collections = ReturnType<typeof makeCollections>;
