// Each staged kind's apply journal (docs/design/staged-lifecycle.md "Apply",
// docs/design/architecture.md "Kinds"): typed over StagedKind like the wire
// registry (registry.ts), so a kind added to the union without its journal
// fails tsc here, naming it. What every journal shares is
// shared/domain/apply-journal.ts; each kind's own is its folder's journal.ts.
import type {
  AppliedLink,
  ApplyBooks,
  JournalBook,
  JournalContext,
  JournalWrite,
  KindJournal,
} from '../domain/apply-journal.js';
import { ok, type Result } from '../domain/result.js';
import type { StagedKind } from '../domain/staged-kind.js';
import { approvalPolicyKindJournal } from './approval-policy/journal.js';
import { bankMatchJournal } from './bank-match/journal.js';
import { bankReconcileJournal } from './bank-reconcile/journal.js';
import { inboxDuplicatesResolveJournal } from './inbox-duplicates-resolve/journal.js';
import { journalEntryKindJournal } from './journal-entry/journal.js';
import { ledgerLinkRepairJournal } from './ledger-link-repair/journal.js';
import { ledgerReversalJournal } from './ledger-reversal/journal.js';
import { periodCloseKindJournal } from './period-close/journal.js';
import { statementImportKindJournal } from './statement-import/journal.js';

/** Each kind's journal: a kind added to StagedKind without one fails tsc here. */
export const JOURNALS: { readonly [K in StagedKind]: KindJournal } = {
  bank_reconcile: bankReconcileJournal,
  ledger_link_repair: ledgerLinkRepairJournal,
  ledger_reversal: ledgerReversalJournal,
  inbox_duplicates_resolve: inboxDuplicatesResolveJournal,
  statement_import: statementImportKindJournal,
  period_close: periodCloseKindJournal,
  bank_match: bankMatchJournal,
  journal_entry: journalEntryKindJournal,
  // A revert's plan lists its writes (shared/kinds/revert/plan.ts, docs/design/staged-lifecycle.md "Reverts").
  revert: {
    plan: (plan) => ok({ writes: (plan as { changes: JournalWrite[] }).changes, links: null }),
    fromPlan: (plan) => (plan as { changes: JournalWrite[] }).changes,
  },
  approval_policy: approvalPolicyKindJournal,
};

/** The books a kind's journal reads (KindJournal.books): every one unless it names them. */
export function journalBooks(kind: StagedKind): readonly JournalBook[] | undefined {
  return JOURNALS[kind].books;
}

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
