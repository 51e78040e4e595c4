// What a revert of a journal entry writes and checks (docs/design/staged-lifecycle.md
// "Reverts"): the entry stays in the books, reversed by a reversing entry as a
// ledger reversal would post it (shared/kinds/ledger-reversal/journal.ts), since
// a posted entry is never deleted; the bank link its apply created is removed
// and the document it attached is back to `open` without `booked_entry_id` (the
// generic undo of its journal). Refused when the entry's links changed since
// the apply: a link to it its apply did not create, or the transaction it
// booked at another version than the entry's staging read.
import { derivedId } from '../../ids.js';
import { compareIds, type IsoDate, type LedgerLine } from '../../domain/books.js';
import { refused } from '../../domain/decision.js';
import { inClosedPeriod, preconditionKey } from '../../domain/preconditions.js';
import type { KindRevertRules, RevertChange } from '../revert/plan.js';
import { journalEntrySubjectKey, type JournalEntryPlan } from './plan.js';

/** What the worker reads besides the journal's records. */
export interface JournalEntryRevertExtra {
  /** Every link of the entry now. */
  entry_link_ids: string[];
  /** The versions now of the transaction the entry booked (null: gone), by `collection/id`. */
  versions: Record<string, number | null>;
  /** The highest version ever reserved on the reversing entry's id (0: none): it is inserted above it. */
  reversing_reserved_version: number;
}

/** The reversing entry's id: derived from the reverted operation, of which one revert at most is applied. */
export const revertReversingEntryId = (revertedId: string): string =>
  derivedId('le', `${revertedId}:revert:reversing_entry`);

type Insert = Extract<RevertChange, { action: 'insert' }>;
type Delete = Extract<RevertChange, { action: 'delete' }>;

export const journalEntryRevertRules: KindRevertRules<JournalEntryRevertExtra> = {
  subjectKeys: (subject) => [journalEntrySubjectKey((subject.plan as JournalEntryPlan).ledger_entry_id)],
  changed: (subject, books) => {
    const created = new Set(subject.writes.filter((w) => w.collection === 'bank_links').map((w) => w.id));
    const links = books.extra.entry_link_ids
      .filter((id) => !created.has(id))
      .map((id) => ({ collection: 'bank_links', id }));
    const { versions } = books.extra;
    const transactions = subject.preconditions
      .filter((p) => p.collection === 'bank_transactions')
      .filter((p) => {
        const key = preconditionKey(p.collection, p.id);
        return key in versions && versions[key] !== p.version;
      })
      .map((p) => ({ collection: p.collection, id: p.id }));
    return [...links, ...transactions].sort((a, b) => compareIds(a.id, b.id));
  },
  // The generic undo deletes the entry its apply inserted; a revert reverses it instead.
  changes: (subject, books, undo, request) => {
    const at = undo.findIndex((c) => c.action === 'delete' && c.collection === 'ledger_entries');
    if (at < 0) return undo;
    const entry = undo[at] as Delete;
    const doc = entry.doc as {
      entry_date: IsoDate;
      reference: string;
      counterparty_id: string;
      currency: string;
      lines: LedgerLine[];
      status: string;
      reversed_by?: string | null;
    };
    const reversalDate = request.reversal_date ?? doc.entry_date;
    if (reversalDate < doc.entry_date)
      return refused('reversal_before_entry', {
        staged_operation_id: subject.id,
        ledger_entry_id: entry.id,
        reversal_date: reversalDate,
        entry_date: doc.entry_date,
      });
    const reversingId = revertReversingEntryId(subject.id);
    const reversing: Insert = {
      action: 'insert',
      collection: 'ledger_entries',
      id: reversingId,
      doc: {
        entry_date: reversalDate,
        description: `Reversal of ${entry.id}`,
        reference: doc.reference,
        counterparty_id: doc.counterparty_id,
        currency: doc.currency,
        lines: doc.lines.map((l) => ({ account: l.account, debit_minor: l.credit_minor, credit_minor: l.debit_minor })),
        status: 'posted',
        reversal_of: entry.id,
        reversed_by: null,
        version: books.extra.reversing_reserved_version + 1,
      },
    };
    const reversed: RevertChange = {
      action: 'update',
      collection: 'ledger_entries',
      id: entry.id,
      version: entry.version,
      set: { status: 'reversed', reversed_by: reversingId },
      before: { status: doc.status, reversed_by: doc.reversed_by ?? null },
    };
    return [...undo.slice(0, at), reversing, reversed, ...undo.slice(at + 1)];
  },
  // The reversing entry is what is booked; the reversed entry may lie in a closed period (as for a ledger reversal).
  locked: (plan, lockDate) => {
    const reversing = plan.changes.find((c) => c.action === 'insert' && c.collection === 'ledger_entries') as
      Insert | undefined;
    if (!reversing) return null;
    const date = reversing.doc.entry_date as IsoDate;
    if (!inClosedPeriod(date, lockDate)) return null;
    return {
      reason: 'period_locked',
      lock_date: lockDate!,
      ledger_entry_id: reversing.doc.reversal_of as string,
      reversal_date: date,
    };
  },
};
