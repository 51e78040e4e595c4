// What applying a staged plan writes (docs/design/staged-lifecycle.md "Apply"):
// per kind, the exact list of version-guarded writes, computed before the
// first one is made and stored on the operation as its journal. Pure: the
// worker loads the documents the plan read (their versions already checked
// against the preconditions), this turns plan + documents into writes.
//
// Each document is written at most once per journal, so each write can be
// guarded by the version the plan saw and bumps it by one. `before` keeps
// what a write replaces, so that a journal interrupted by a conflicting
// change can be undone (storage: shared/storage/apply-writes.ts).
//
// This file holds what every kind's journal shares; each kind's own journal is
// its folder's journal.ts, and shared/kinds/journals.ts maps each kind to it
// (docs/design/architecture.md "Kinds").
import { AppError } from '../errors.js';
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  LedgerEntry,
  Precondition,
  VersionedInboxDocument,
} from './books.js';
import { fail, ok, type Result } from './result.js';

/** The collections a journal writes: the books, and the inbox's dismissals (docs/design/duplicate-overview.md "Dismissals"). */
export type BookCollection =
  Precondition['collection'] | 'duplicate_dismissals' | 'closed_periods' | 'approval_policies';
export type Fields = Record<string, unknown>;

export type JournalWrite =
  /** Set `set` on the document at `version`; it becomes `version + 1`. */
  | { action: 'update'; collection: BookCollection; id: string; version: number; set: Fields; before: Fields }
  /** Insert a new document (`doc` without id and org_id, `version` 1). */
  | { action: 'insert'; collection: BookCollection; id: string; doc: Fields }
  /** Delete the document at `version`; `doc` is what it held. */
  | { action: 'delete'; collection: BookCollection; id: string; version: number; doc: Fields };

/** The current documents the plan read, as loaded after the preconditions were checked. */
export interface ApplyBooks {
  entries: readonly LedgerEntry[];
  accounts: readonly BankAccount[];
  transactions: readonly BankTransaction[];
  links: readonly BankLink[];
  /** Inbox documents (a duplicate resolution); absent when the plan read none. */
  documents?: readonly VersionedInboxDocument[];
  /** What a kind's `applyBooks` hook read beyond the books, in that kind's own shape (a period close: its org and hash). */
  kind?: unknown;
}

export interface JournalContext {
  staged_operation_id: string;
  org_id: string;
  /** Who applies: recorded as `created_by` of links the journal creates. */
  actor: string;
  /** ISO 8601 UTC: `created_at` of links the journal creates. */
  now: string;
}

/** What applying one kind's plans writes. */
export interface KindJournal {
  /** The journal and, for a link repair, the link each moved or new amount goes to; an error when the plan does not fit the books. */
  plan(
    plan: unknown,
    books: ApplyBooks,
    ctx: JournalContext,
  ): Result<{ writes: JournalWrite[]; links: AppliedLink[] | null }>;
  /**
   * Present for a kind whose journal is a function of its plan alone (a
   * statement import): the operation then stores no copy of it. The other
   * kinds read the books as they are when apply starts.
   */
  fromPlan?(plan: unknown): JournalWrite[];
  /**
   * The books `plan` reads, where not all: the precondition records of the
   * others are read for their versions alone (a link repair's ten thousand
   * transactions and entries), and given to `plan` as none.
   */
  books?: readonly JournalBook[];
}

/** A record collection of ApplyBooks a journal may read. */
export type JournalBook = 'entries' | 'accounts' | 'transactions' | 'links' | 'documents';

/** A kind's journal that names no links (every kind's but a link repair's). */
export const withoutLinks = (journal: Result<JournalWrite[]>): Result<{ writes: JournalWrite[]; links: null }> =>
  journal.ok ? ok({ writes: journal.value, links: null }) : journal;

/** For each `move` and `link` action of a repair (by index into plan.actions), the link its amount goes to: an existing one or the one apply creates. */
export interface AppliedLink {
  action_index: number;
  link_id: string;
}

/** An apply that cannot go on: the plan does not fit the books (apply ends `failed`). */
export const failed = (reason: string, details: Fields = {}): Result<never> =>
  fail(new AppError('apply_failed', { details: { reason, ...details } }));

/** A link's stored fields without its id (what a delete keeps, for undo). */
export function linkFields(link: BankLink): Fields {
  const { id: _id, ...fields } = link;
  return { ...fields };
}

/**
 * How many journal writes make one step (docs/design/staged-lifecycle.md
 * "Apply"): a step's writes go to the store together (a run of inserts as
 * shared/storage/apply-writes.ts makeInserts sends it: statements side by
 * side where the store has them, else ordered insertMany calls of at most
 * 100; a run with updates or deletes as one reservation of their versions,
 * one read and one bulk write), and then one progress step records them all,
 * instead of two or three round trips per write. A job that dies inside a
 * step leaves some of its writes made, which its successor finds there and
 * counts as its own. The byte bound keeps the step's documents a few MB.
 */
export interface InsertBatchLimits {
  readonly writes: number;
  readonly bytes: number;
}
export const INSERT_BATCH_LIMITS: InsertBatchLimits = { writes: 1_000, bytes: 4_000_000 };

/** The collection whose documents carry no `org_id` (an organisation is its `_id`): its writes are steps alone. */
const UNOWNED_COLLECTION = 'orgs';

/** The JSON size of what a write carries (its step's byte bound). */
const writeBytes = (w: JournalWrite): number =>
  w.id.length +
  (w.action === 'update'
    ? JSON.stringify(w.set).length + JSON.stringify(w.before).length
    : JSON.stringify(w.doc).length);

/**
 * The end (exclusive) of the journal step that starts at `from`: a run of
 * consecutive writes into one collection, at most `limits.writes` of them and
 * of at most about `limits.bytes` (the JSON they carry; a single larger write
 * still makes a step of one). A write to an organisation's own document is a
 * step alone. `stopAfter(n)` ends a step after write n (1-based) even inside a
 * run: the worker's test-fault points name writes, and a step never runs past one.
 */
export function journalStepEnd(
  writes: readonly JournalWrite[],
  from: number,
  limits: InsertBatchLimits = INSERT_BATCH_LIMITS,
  stopAfter: (n: number) => boolean = () => false,
): number {
  const first = writes[from];
  if (!first) return from;
  if (first.collection === UNOWNED_COLLECTION) return from + 1;
  let end = from;
  let bytes = 0;
  while (end < writes.length && end - from < limits.writes) {
    const w = writes[end]!;
    if (w.collection !== first.collection) break;
    bytes += writeBytes(w);
    if (end > from && bytes > limits.bytes) break;
    end += 1;
    if (stopAfter(end)) break;
  }
  return end;
}

/** The ids a journal writes, by action: what an applied operation records. */
export function journalChanges(
  writes: readonly JournalWrite[],
): Array<{ action: JournalWrite['action']; collection: BookCollection; id: string }> {
  return writes.map((w) => ({ action: w.action, collection: w.collection, id: w.id }));
}
