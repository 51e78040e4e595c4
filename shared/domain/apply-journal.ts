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
import { AppError } from '../errors.js';
import { derivedId } from '../ids.js';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Precondition } from './books.js';
import { compareIds } from './books.js';
import type { RepairAction, LinkRepairPlan } from './link-repair-plan.js';
import type { ReconciliationPlan } from './reconcile-checks.js';
import type { ReversalPlan } from './reversal-plan.js';
import { duplicateOfReason, type InboxResolvePlan, type VersionedInboxDocument } from './inbox-resolve-plan.js';
import { duplicateGroupId } from './duplicate-groups.js';
import { fail, ok, type Result } from './result.js';
import type { StagedKind } from './staged-kind.js';
import type { StatementImportPlan } from './statement-import/plan.js';
import { approvalPolicyId, type ApprovalPolicyPlan } from './approval-policy.js';

/** The collections a journal writes: the books, and the inbox's dismissals (docs/design/duplicate-overview.md "Dismissals"). */
export type BookCollection = Precondition['collection'] | 'duplicate_dismissals' | 'approval_policies';
type Fields = Record<string, unknown>;

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
interface KindJournal {
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
}

const withoutLinks = (journal: Result<JournalWrite[]>): Result<{ writes: JournalWrite[]; links: null }> =>
  journal.ok ? ok({ writes: journal.value, links: null }) : journal;

/** Each kind's journal (docs/design/architecture.md "Kinds"): a kind added to StagedKind without one fails tsc here. */
const JOURNALS: { readonly [K in StagedKind]: KindJournal } = {
  bank_reconcile: {
    plan: (plan, books, ctx) => withoutLinks(reconcileJournal(plan as ReconciliationPlan, books, ctx)),
  },
  ledger_link_repair: { plan: (plan, books, ctx) => repairJournalWithLinks(plan as LinkRepairPlan, books, ctx) },
  ledger_reversal: { plan: (plan, books, ctx) => withoutLinks(reversalJournal(plan as ReversalPlan, books, ctx)) },
  inbox_duplicates_resolve: {
    plan: (plan, books, ctx) => withoutLinks(inboxResolveJournal(plan as InboxResolvePlan, books, ctx)),
  },
  statement_import: {
    plan: (plan) => ok({ writes: statementImportJournal(plan as StatementImportPlan), links: null }),
    fromPlan: (plan) => statementImportJournal(plan as StatementImportPlan),
  },
  approval_policy: {
    plan: (plan, _books, ctx) => ok({ writes: approvalPolicyJournal(plan as ApprovalPolicyPlan, ctx), links: null }),
  },
};

/** The journal of one plan; a plan that does not fit the books it was checked against fails (apply ends `failed`). */
export function planJournal(
  kind: StagedKind,
  plan: unknown,
  books: ApplyBooks,
  ctx: JournalContext,
): Result<JournalWrite[]> {
  const journal = JOURNALS[kind].plan(plan, books, ctx);
  return journal.ok ? ok(journal.value.writes) : journal;
}

/**
 * The journal and, for a link repair, the link each moved or new amount goes
 * to (recorded in the apply result, so a reviewer sees old link id → new
 * link id), decided in one pass: what apply stores when it
 * starts (docs/design/staged-lifecycle.md "Apply").
 */
export function planJournalWithLinks(
  kind: StagedKind,
  plan: unknown,
  books: ApplyBooks,
  ctx: JournalContext,
): Result<{ writes: JournalWrite[]; links: AppliedLink[] | null }> {
  return JOURNALS[kind].plan(plan, books, ctx);
}

/**
 * The journal of a kind whose journal is a function of its plan alone (a
 * statement import), else null (the other kinds read the books as they are
 * when apply starts). The operation then stores no copy of it: the plan is
 * stored and never changes, so every reader derives the same writes
 * (docs/design/staged-lifecycle.md "Crash safety").
 */
export function journalFromPlan(kind: StagedKind, plan: unknown): JournalWrite[] | null {
  return JOURNALS[kind].fromPlan?.(plan) ?? null;
}

/** Whether journalFromPlan derives this kind's journal (the operation then stores none). */
export const journalDerivedFromPlan = (kind: StagedKind): boolean => JOURNALS[kind].fromPlan !== undefined;

/**
 * A statement import's journal (docs/guide/statement-import.md "Apply"): one insert
 * per new transaction, under the plan's deterministic id, unreconciled at
 * version 1. A unique `_id` insert settles a retry: the id already there with
 * these fields is this journal's own write.
 */
export function statementImportJournal(plan: StatementImportPlan): JournalWrite[] {
  return plan.new_transactions.map((t) => ({
    action: 'insert',
    collection: 'bank_transactions',
    id: t.id,
    doc: {
      bank_account_id: plan.bank_account_id,
      booking_date: t.booking_date,
      value_date: t.value_date,
      amount_minor: t.amount_minor,
      currency: t.currency,
      counterparty_id: t.counterparty_id,
      counterparty_name: t.counterparty_name ?? '',
      counterparty_iban: t.counterparty_iban,
      remittance_info: t.remittance_info ?? '',
      bank_reference: t.bank_reference,
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
    },
  }));
}

/** The id of the reversing entry a reversal's apply posts: derived, so a retried journal posts the same one. */
export function reversingEntryId(ctx: Pick<JournalContext, 'org_id' | 'staged_operation_id'>): string {
  return derivedId('le', `${ctx.org_id}:${ctx.staged_operation_id}:reversing_entry`);
}

/** The id of a link a repair's apply creates for (transaction, entry). */
export function repairLinkId(
  ctx: Pick<JournalContext, 'org_id' | 'staged_operation_id'>,
  transactionId: string,
  entryId: string,
): string {
  return derivedId('lnk', `${ctx.org_id}:${ctx.staged_operation_id}:${transactionId}:${entryId}`);
}

const failed = (reason: string, details: Fields = {}): Result<never> =>
  fail(new AppError('apply_failed', { details: { reason, ...details } }));

// ---------------------------------------------------------------------------
// Reconciliation: each transaction reconciled with the operation's id, then
// the account's reconciled_through moved to the statement.

function reconcileJournal(plan: ReconciliationPlan, books: ApplyBooks, ctx: JournalContext): Result<JournalWrite[]> {
  const txnById = new Map(books.transactions.map((t) => [t.id, t]));
  const account = books.accounts.find((a) => a.id === plan.bank_account_id);
  if (!account) return failed('bank_account_missing', { id: plan.bank_account_id });
  const writes: JournalWrite[] = [];
  for (const planned of plan.transactions) {
    const txn = txnById.get(planned.bank_transaction_id);
    if (!txn) return failed('bank_transaction_missing', { id: planned.bank_transaction_id });
    if (txn.status !== 'unreconciled') return failed('bank_transaction_already_reconciled', { id: txn.id });
    writes.push({
      action: 'update',
      collection: 'bank_transactions',
      id: txn.id,
      version: txn.version,
      set: { status: 'reconciled', reconciliation_id: ctx.staged_operation_id },
      before: { status: txn.status, reconciliation_id: txn.reconciliation_id },
    });
  }
  writes.push({
    action: 'update',
    collection: 'bank_accounts',
    id: account.id,
    version: account.version,
    set: { reconciled_through: { date: plan.statement.end_date, balance_minor: plan.closing_balance_minor } },
    before: { reconciled_through: account.reconciled_through },
  });
  return ok(writes);
}

// ---------------------------------------------------------------------------
// Reversal: post the reversing entry, mark the original reversed, delete its
// bank links.

function reversalJournal(plan: ReversalPlan, books: ApplyBooks, ctx: JournalContext): Result<JournalWrite[]> {
  const entry = books.entries.find((e) => e.id === plan.ledger_entry_id);
  if (!entry) return failed('ledger_entry_missing', { id: plan.ledger_entry_id });
  if (entry.status !== 'posted' || entry.reversed_by) return failed('ledger_entry_already_reversed', { id: entry.id });
  const newId = reversingEntryId(ctx);
  const r = plan.reversing_entry;
  const writes: JournalWrite[] = [
    {
      action: 'insert',
      collection: 'ledger_entries',
      id: newId,
      doc: {
        entry_date: r.entry_date,
        description: r.description,
        reference: r.reference,
        counterparty_id: r.counterparty_id,
        currency: r.currency,
        lines: r.lines.map((l) => ({ ...l })),
        status: 'posted',
        reversal_of: r.reversal_of,
        reversed_by: null,
        version: 1,
      },
    },
    {
      action: 'update',
      collection: 'ledger_entries',
      id: entry.id,
      version: entry.version,
      set: { status: 'reversed', reversed_by: newId },
      before: { status: entry.status, reversed_by: entry.reversed_by },
    },
  ];
  const linkById = new Map(books.links.map((l) => [l.id, l]));
  for (const action of plan.actions) {
    const link = linkById.get(action.link_id);
    if (!link) return failed('bank_link_missing', { id: action.link_id });
    if (link.amount_minor !== action.amount_minor) return failed('bank_link_amount_changed', { id: link.id });
    writes.push({
      action: 'delete',
      collection: 'bank_links',
      id: link.id,
      version: link.version,
      doc: linkFields(link),
    });
  }
  return ok(writes);
}

// ---------------------------------------------------------------------------
// Repair: the plan's actions, in order, on the transactions' links
// (docs/reference/http-api.md §13.2.2, docs/design/decisions.md): `move` takes the amount off link_id
// (deleted at 0) and adds it to the transaction's link to the target entry
// (created if absent); `link` adds to that link the same way; `unlink` takes
// the amount off the link. Several actions on one link become one write of
// its final state.

interface LinkState {
  original: BankLink | null;
  /** Fields as they will be after the journal (amount 0 = deleted). */
  current: Omit<BankLink, 'id' | 'version'>;
}

/** Values by (transaction id, entry id), each pair's in the order they were added. */
class PairIndex<V> {
  private readonly byTransaction = new Map<string, Map<string, V[]>>();
  add(transactionId: string, entryId: string, value: V): void {
    let byEntry = this.byTransaction.get(transactionId);
    if (!byEntry) this.byTransaction.set(transactionId, (byEntry = new Map<string, V[]>()));
    const values = byEntry.get(entryId);
    if (values) values.push(value);
    else byEntry.set(entryId, [value]);
  }
  get(transactionId: string, entryId: string): readonly V[] {
    return this.byTransaction.get(transactionId)?.get(entryId) ?? NONE;
  }
}
const NONE: readonly never[] = [];

/** For each `move` and `link` action of a repair (by index into plan.actions), the link its amount goes to: an existing one or the one apply creates. */
export interface AppliedLink {
  action_index: number;
  link_id: string;
}

function repairJournalWithLinks(
  plan: LinkRepairPlan,
  books: ApplyBooks,
  ctx: JournalContext,
): Result<{ writes: JournalWrite[]; links: AppliedLink[] }> {
  const appliedLinks: AppliedLink[] = [];
  const known = new Map(books.links.map((l) => [l.id, l]));
  const state = new Map<string, LinkState>();
  const order: string[] = [];
  // why by (transaction, entry): `give` looks up a pair's links once per action, and a scan of
  // every link per action made a 10,000-transaction repair's journal take a minute of one core.
  // A link's pair never changes, so each pair's touched links stay in the order they were touched.
  const touchedByPair = new PairIndex<string>();
  const storedByPair = new PairIndex<BankLink>();
  for (const l of [...books.links].sort((a, b) => compareIds(a.id, b.id)))
    storedByPair.add(l.bank_transaction_id, l.ledger_entry_id, l);
  const touch = (id: string, seed: () => LinkState): LinkState => {
    let s = state.get(id);
    if (!s) {
      s = seed();
      state.set(id, s);
      order.push(id);
      touchedByPair.add(s.current.bank_transaction_id, s.current.ledger_entry_id, id);
    }
    return s;
  };
  const existing = (id: string): LinkState | null => {
    const stored = known.get(id);
    if (state.has(id)) return state.get(id)!;
    return stored ? touch(id, () => ({ original: stored, current: linkFields(stored) as LinkState['current'] })) : null;
  };
  const take = (action: RepairAction & { link_id: string }): string | null => {
    const s = existing(action.link_id);
    if (!s || s.current.bank_transaction_id !== action.bank_transaction_id) return 'bank_link_missing';
    if (s.current.amount_minor < action.amount_minor) return 'bank_link_amount_too_small';
    s.current.amount_minor -= action.amount_minor;
    return null;
  };
  const give = (transactionId: string, entryId: string, amount: number): string => {
    // The transaction's link to the entry: one this journal already touches (the first touched), else the stored one with the lowest id, else a new one.
    const touched = touchedByPair.get(transactionId, entryId).find((id) => state.get(id)!.current.amount_minor > 0);
    const stored = storedByPair.get(transactionId, entryId).find((l) => !state.has(l.id));
    const id = touched ?? stored?.id ?? repairLinkId(ctx, transactionId, entryId);
    const s =
      existing(id) ??
      touch(id, () => ({
        original: null,
        current: {
          bank_transaction_id: transactionId,
          ledger_entry_id: entryId,
          amount_minor: 0,
          created_at: ctx.now,
          created_by: ctx.actor,
        },
      }));
    s.current.amount_minor += amount;
    return id;
  };

  for (const [index, action] of plan.actions.entries()) {
    if (action.kind === 'link') {
      appliedLinks.push({
        action_index: index,
        link_id: give(action.bank_transaction_id, action.ledger_entry_id, action.amount_minor),
      });
      continue;
    }
    const problem = take(action);
    if (problem) return failed(problem, { id: action.link_id });
    if (action.kind === 'move')
      appliedLinks.push({
        action_index: index,
        link_id: give(action.bank_transaction_id, action.to_ledger_entry_id, action.amount_minor),
      });
  }

  const writes: JournalWrite[] = [];
  for (const id of order) {
    const { original, current } = state.get(id)!;
    if (!original) {
      if (current.amount_minor > 0)
        writes.push({ action: 'insert', collection: 'bank_links', id, doc: { ...current, version: 1 } });
    } else if (current.amount_minor === 0) {
      writes.push({
        action: 'delete',
        collection: 'bank_links',
        id,
        version: original.version,
        doc: linkFields(original),
      });
    } else if (current.amount_minor !== original.amount_minor) {
      writes.push({
        action: 'update',
        collection: 'bank_links',
        id,
        version: original.version,
        set: { amount_minor: current.amount_minor },
        before: { amount_minor: original.amount_minor },
      });
    }
  }
  return ok({ writes, links: appliedLinks });
}

// ---------------------------------------------------------------------------
// Duplicate resolution (docs/design/duplicate-overview.md "Resolving a
// group"): archive_duplicates archives every member but the kept one, with
// the reason; not_duplicates records the dismissal of exactly that set of
// documents. Documents are never deleted.

/** The `_id` of the dismissal of a set of documents: one per org and set (the group id is the hash of the sorted ids). */
export function dismissalId(orgId: string, documentIds: readonly string[]): string {
  return `${orgId}:${duplicateGroupId(documentIds)}`;
}

function inboxResolveJournal(plan: InboxResolvePlan, books: ApplyBooks, ctx: JournalContext): Result<JournalWrite[]> {
  const byId = new Map((books.documents ?? []).map((d) => [d.id, d]));
  for (const id of plan.member_ids) {
    const doc = byId.get(id);
    if (!doc) return failed('inbox_document_missing', { id });
    if (doc.status === 'archived') return failed('inbox_document_archived', { id });
  }
  if (plan.resolution === 'not_duplicates') {
    return ok([
      {
        action: 'insert',
        collection: 'duplicate_dismissals',
        id: dismissalId(ctx.org_id, plan.member_ids),
        doc: {
          document_ids: [...plan.member_ids],
          group_id: plan.group_id,
          staged_operation_id: ctx.staged_operation_id,
          note: plan.note,
          created_at: ctx.now,
          created_by: ctx.actor,
          version: 1,
        },
      },
    ]);
  }
  const reason = duplicateOfReason(plan.keep_document_id as string);
  return ok(
    plan.archive_document_ids.map((id): JournalWrite => {
      const doc = byId.get(id) as VersionedInboxDocument;
      return {
        action: 'update',
        collection: 'inbox_documents',
        id,
        version: doc.version,
        set: { status: 'archived', archived_reason: reason },
        before: { status: doc.status, archived_reason: doc.archived_reason ?? null },
      };
    }),
  );
}

/** A link's stored fields without its id (what a delete keeps, for undo). */
function linkFields(link: BankLink): Fields {
  const { id: _id, ...fields } = link;
  return { ...fields };
}

/**
 * How many journal inserts make one step (docs/design/staged-lifecycle.md
 * "Apply"): the inserts of a step go to the store as ordered insertMany calls
 * of at most 100 (shared/storage/apply-writes.ts ORDERED_INSERT_LIMIT, the
 * bound FerretDB 1.24's ordered inserts need), one after the other, and then
 * one progress step records them all, instead of two round trips per insert
 * or one progress step per 100. A job that dies inside a step leaves a prefix
 * of it made, which its successor finds there and counts as its own. The byte
 * bound keeps the step's documents a few MB.
 */
export interface InsertBatchLimits {
  readonly writes: number;
  readonly bytes: number;
}
export const INSERT_BATCH_LIMITS: InsertBatchLimits = { writes: 1_000, bytes: 4_000_000 };

/**
 * The end (exclusive) of the journal step that starts at `from`: a run of
 * consecutive inserts into one collection, at most `limits.writes` of them and
 * of at most about `limits.bytes` (the JSON of their documents; a single
 * larger insert still makes a step of one), or any other write alone — an
 * update or a delete keeps its own version claim and guard. `stopAfter(n)`
 * ends a step after write n (1-based) even inside a run: the worker's
 * test-fault points name writes, and a step never runs past one.
 */
export function journalStepEnd(
  writes: readonly JournalWrite[],
  from: number,
  limits: InsertBatchLimits = INSERT_BATCH_LIMITS,
  stopAfter: (n: number) => boolean = () => false,
): number {
  const first = writes[from];
  if (!first) return from;
  if (first.action !== 'insert') return from + 1;
  let end = from;
  let bytes = 0;
  while (end < writes.length && end - from < limits.writes) {
    const w = writes[end]!;
    if (w.action !== 'insert' || w.collection !== first.collection) break;
    bytes += JSON.stringify(w.doc).length + w.id.length;
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

/**
 * A policy change's journal (docs/design/staged-lifecycle.md "Approval policies"):
 * one insert, the new version under the id derived from the organisation and
 * that version. The unique `_id` settles a race: a second change built on the
 * same version finds it taken, and its apply ends without writing.
 */
function approvalPolicyJournal(plan: ApprovalPolicyPlan, ctx: JournalContext): JournalWrite[] {
  return [
    {
      action: 'insert',
      collection: 'approval_policies',
      id: approvalPolicyId(ctx.org_id, plan.version),
      doc: {
        policy_version: plan.version,
        rules: plan.rules,
        agents_may_approve: plan.agents_may_approve,
        unattended: plan.unattended,
        updated_at: ctx.now,
        updated_by_operation: ctx.staged_operation_id,
        version: 1,
      },
    },
  ];
}
