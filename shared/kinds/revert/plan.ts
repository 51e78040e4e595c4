// A revert's plan (docs/design/staged-lifecycle.md "Reverts"): every record the
// reverted operation's apply wrote, written back to what it was, computed from
// that apply's journal (shared/domain/apply-journal.ts) and the records as they
// are now. Pure: the worker loads the operation, its journal and the records;
// the reverted kind's rules (KindRevertRules, each kind's own revert.ts) add
// its refusals. Checked in the order of the docs' table.
import { compareIds, type IsoDate, type Precondition } from '../../domain/books.js';
import type { BookCollection, JournalWrite } from '../../domain/apply-journal.js';
import { refused, type Decision, type RefusedDecision, type PlanLocks } from '../../domain/decision.js';
import { canonicalJson, planHash } from '../../domain/plan-hash.js';
import type { PeriodLocked } from '../../domain/preconditions.js';
import { decideWithPending, type PendingHolder } from '../../domain/pending-gate.js';
import type { StagedKind } from '../../domain/staged-kind.js';
import type { StagedStatus } from '../../domain/staged-transitions.js';
import type { TokenScope } from '../../domain/token-scopes.js';

type Fields = Record<string, unknown>;

/**
 * One record a revert writes, as an apply journal writes it: `update` to
 * `set` (the value it takes; `before` is its value now) at `version` (its
 * version now); `delete` of `doc` (what it holds now) at `version`; `insert`
 * of `doc`, a record the reverted apply deleted, back as it was with a
 * version above the one it had (versions never go back).
 */
export type RevertChange = JournalWrite;

export interface RevertPlan {
  /** The reverted operation. */
  reverts: string;
  reverts_kind: StagedKind;
  /** In the reverse of the reverted journal's order. */
  changes: RevertChange[];
}

/** A record as it is now: its stored fields (without `_id` and `org_id`), `version` among them. */
export type StoredRecord = Fields & { version: number };

export const recordKey = (collection: string, id: string): string => `${collection}/${id}`;

/** The applied operation a revert is asked for, as the worker loaded it. */
export interface RevertSubject {
  id: string;
  kind: StagedKind;
  status: StagedStatus;
  plan: unknown;
  preconditions: readonly Precondition[];
  /** When its apply ended (its result's `at`). */
  applied_at: string | null;
  /** Its apply journal (empty for an operation that is not applied). */
  writes: readonly JournalWrite[];
}

/** The revert's checks and records of one reverted kind (docs/design/staged-lifecycle.md "Reverts"): pure. */
export interface KindRevertRules<Extra = unknown> {
  /** The kind's own refusal, checked before `changed_since_apply` (a reconciliation's `not_latest_reconciliation`). */
  refusal?(subject: RevertSubject, books: RevertBooks<Extra>): RefusedDecision | null;
  /** Records beyond those the journal wrote whose change since the apply refuses the revert (`collection/id`). */
  changed?(subject: RevertSubject, books: RevertBooks<Extra>): Array<{ collection: string; id: string }>;
  /** The reverted kind's own subject keys for what the revert writes, locked beside `revert:<id>`. */
  subjectKeys?(subject: RevertSubject): string[];
  /** What of the revert's plan the lock date covers, or null (checked at staging and again at apply). */
  locked?(plan: RevertPlan, lockDate: IsoDate | null): PeriodLocked | null;
  /**
   * The kind's own writes in place of the generic undo of its journal (`undo`, every record found as the apply
   * left it), or its refusal: a journal entry is reversed by a reversing entry rather than deleted, a policy change
   * puts the policy it replaced back as a new version. The journal's records are still checked for changes.
   */
  changes?(
    subject: RevertSubject,
    books: RevertBooks<Extra>,
    undo: RevertChange[],
    request: Pick<RevertRequest, 'reversal_date'>,
  ): RevertChange[] | RefusedDecision;
}

export interface RevertBooks<Extra = unknown> {
  /** Every record the reverted journal wrote, as it is now (null: absent), by recordKey. */
  records: ReadonlyMap<string, StoredRecord | null>;
  /** What the reverted kind's worker hook read besides (its `load`). */
  extra: Extra;
}

/** What the staging job knows beyond the books: who asks and what else holds the operation. */
export interface RevertRequest {
  /** The token's scopes, and the one the reverted kind's staging call requires (null: none, e.g. a revert). */
  scopes: readonly string[];
  required_scope: TokenScope | null;
  /** Reverts of this operation that are approved, applying or applied (their ids and status). */
  reverts: ReadonlyArray<{ id: string; status: StagedStatus }>;
  /** The operation's `reverted_by`, once a revert of it was applied. */
  reverted_by: string | null;
  /** The reverted kind's rules; null: the kind cannot be reverted. */
  rules: KindRevertRules | null;
  lock_date: IsoDate | null;
  pending: readonly PendingHolder[];
  /** The reversing entry's date of a journal entry's revert: the request's, else today (UTC). */
  reversal_date?: IsoDate;
}

/** The plan lock's scope key of a revert: one revert of an operation pending at a time (docs/reference/http-api.md §6.3). */
export const revertSubjectKey = (revertedId: string): string => `revert:${revertedId}`;

/** Statuses in which a revert counts as done for `already_reverted` (a staged one answers as a repeated staging). */
const REVERTING: readonly StagedStatus[] = ['approved', 'applying', 'applied'];

const same = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** The fields of `fields` whose value `record` does not hold. */
const holdsAll = (record: StoredRecord, fields: Fields): boolean =>
  Object.entries(fields).every(([k, v]) => k === 'version' || same(record[k], v));

const storedFields = (record: StoredRecord): Fields => ({ ...record });

/**
 * The revert of one journal write, or null when the record is no longer what
 * the apply left (changed since the apply).
 */
function undoOf(w: JournalWrite, now: StoredRecord | null): RevertChange | null {
  switch (w.action) {
    case 'update': {
      if (!now || !holdsAll(now, w.set)) return null;
      const before: Fields = {};
      for (const k of Object.keys(w.before)) before[k] = now[k] ?? null;
      return { action: 'update', collection: w.collection, id: w.id, version: now.version, set: w.before, before };
    }
    case 'insert':
      if (!now || !holdsAll(now, w.doc)) return null;
      return { action: 'delete', collection: w.collection, id: w.id, version: now.version, doc: storedFields(now) };
    case 'delete':
      if (now) return null;
      return { action: 'insert', collection: w.collection, id: w.id, doc: { ...w.doc, version: w.version + 1 } };
  }
}

/**
 * What a revert locks, as the reverted kind locks what it writes: that kind's subject keys, the transactions,
 * entries and inbox documents it writes, and the transactions and entries of the links it writes.
 */
function locksOf(plan: RevertPlan, records: RevertBooks['records'], subjectKeys: readonly string[]): PlanLocks {
  const entries = new Set<string>();
  const transactions = new Set<string>();
  const documents = new Set<string>();
  for (const c of plan.changes) {
    if (c.collection === 'ledger_entries') entries.add(c.id);
    if (c.collection === 'bank_transactions') transactions.add(c.id);
    if (c.collection === 'inbox_documents') documents.add(c.id);
    if (c.collection === 'bank_links') {
      const fields = c.action === 'update' ? (records.get(recordKey(c.collection, c.id)) ?? {}) : c.doc;
      if (typeof fields.ledger_entry_id === 'string') entries.add(fields.ledger_entry_id);
      if (typeof fields.bank_transaction_id === 'string') transactions.add(fields.bank_transaction_id);
    }
  }
  return {
    subject_key: revertSubjectKey(plan.reverts),
    other_subject_keys: [...new Set(subjectKeys)].sort(),
    entry_ids: [...entries].sort(compareIds),
    transaction_ids: [...transactions].sort(compareIds),
    document_ids: [...documents].sort(compareIds),
  };
}

/** The preconditions of a revert: each record it updates or deletes, at its version now (an insert is settled by its unique id). */
const PRECONDITION_COLLECTIONS: ReadonlySet<BookCollection> = new Set<BookCollection>([
  'ledger_entries',
  'bank_accounts',
  'bank_transactions',
  'bank_links',
  'inbox_documents',
]);

function preconditionsOf(plan: RevertPlan): Precondition[] {
  return plan.changes.flatMap((c): Precondition[] =>
    c.action === 'insert' || !PRECONDITION_COLLECTIONS.has(c.collection)
      ? []
      : [{ collection: c.collection as Precondition['collection'], id: c.id, version: c.version }],
  );
}

/**
 * The dated records a revert removes or brings back that the lock date covers
 * (docs/design/staged-lifecycle.md "Closed periods"): bank transactions by
 * booking date. The reverted kind's rules may name more (a reconciliation's
 * statement end).
 */
export function lockedRevert(
  plan: RevertPlan,
  lockDate: IsoDate | null,
  rules: KindRevertRules | null,
): PeriodLocked | null {
  if (lockDate === null) return null;
  const own = rules?.locked?.(plan, lockDate);
  if (own) return own;
  const ids = plan.changes
    .filter(
      (c) =>
        c.action !== 'update' &&
        c.collection === 'bank_transactions' &&
        typeof c.doc.booking_date === 'string' &&
        c.doc.booking_date <= lockDate,
    )
    .map((c) => c.id)
    .sort(compareIds);
  return ids.length > 0 ? { reason: 'period_locked', lock_date: lockDate, transaction_ids: ids } : null;
}

/**
 * Decide a revert (docs/design/staged-lifecycle.md "Reverts", in its order):
 * the operation unknown or not the caller's to see → not_found; the token
 * without the reverted kind's staging scope → forbidden; not applied →
 * not_applied; a kind without rules → not_revertible; a revert of it
 * approved or applied → already_reverted; the kind's refusal; any record the
 * apply wrote (or the kind names) changed since → changed_since_apply; the
 * kind's own writes or their refusal (a journal entry's reversal date before
 * the entry: reversal_before_entry); the lock date → period_locked; then the
 * pending gate.
 */
export function decideRevert(
  subject: RevertSubject | null,
  books: RevertBooks,
  request: RevertRequest,
  requestedId: string,
): Decision<RevertPlan> {
  if (!subject) return refused('not_found', { resource: 'Staged operation', id: requestedId });
  if (request.required_scope !== null && !request.scopes.includes(request.required_scope))
    return refused('forbidden', { required_scope: request.required_scope });
  if (subject.status !== 'applied')
    return refused('not_applied', { staged_operation_id: subject.id, status: subject.status });
  const rules = request.rules;
  if (!rules) return refused('not_revertible', { staged_operation_id: subject.id, kind: subject.kind });
  const done = request.reverted_by ?? request.reverts.find((r) => REVERTING.includes(r.status))?.id ?? null;
  if (done !== null) return refused('already_reverted', { staged_operation_id: subject.id, reverted_by: done });
  const own = rules.refusal?.(subject, books);
  if (own) return own;

  const changes: RevertChange[] = [];
  const changed = new Map<string, { collection: string; id: string }>();
  for (const w of [...subject.writes].reverse()) {
    const undo = undoOf(w, books.records.get(recordKey(w.collection, w.id)) ?? null);
    if (undo) changes.push(undo);
    else changed.set(recordKey(w.collection, w.id), { collection: w.collection, id: w.id });
  }
  for (const c of rules.changed?.(subject, books) ?? []) changed.set(recordKey(c.collection, c.id), c);
  if (changed.size > 0) {
    const records = [...changed.values()].sort((a, b) =>
      compareIds(recordKey(a.collection, a.id), recordKey(b.collection, b.id)),
    );
    return refused('changed_since_apply', {
      staged_operation_id: subject.id,
      ids: records.map((r) => r.id),
      records,
    });
  }

  const written = rules.changes?.(subject, books, changes, request) ?? changes;
  if (!Array.isArray(written)) return written;
  const plan: RevertPlan = { reverts: subject.id, reverts_kind: subject.kind, changes: written };
  const locked = lockedRevert(plan, request.lock_date, rules);
  if (locked) {
    const { reason: _reason, ...details } = locked;
    return refused('period_locked', { staged_operation_id: subject.id, ...details });
  }
  return decideWithPending(request.pending, {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: locksOf(plan, books.records, rules.subjectKeys?.(subject) ?? []),
    preconditions: preconditionsOf(plan),
    warnings: [],
  });
}

/** A revert's journal: its changes, as they are (the plan is the journal; docs/design/staged-lifecycle.md "Reverts"). */
export const revertJournal = (plan: RevertPlan): JournalWrite[] => plan.changes;
