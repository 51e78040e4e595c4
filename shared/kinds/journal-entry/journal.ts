// What applying a journal entry writes (docs/design/staged-lifecycle.md "Apply"): the entry under its
// derived id, the link that books the bank transaction for what it had left unlinked, and the attached
// inbox document marked `booked`. Pure; JOURNALS (shared/kinds/journals.ts) lists it.
import { derivedId } from '../../ids.js';
import { failed, withoutLinks, type KindJournal } from '../../domain/apply-journal.js';
import type { BankLink, BankTransaction, VersionedInboxDocument } from '../../domain/books.js';
import { ok, type Result } from '../../domain/result.js';
import { unlinkedMinor, type JournalEntryPlan } from './plan.js';

type Fields = Record<string, unknown>;

export type JournalEntryWrite =
  | { action: 'insert'; collection: 'ledger_entries' | 'bank_links'; id: string; doc: Fields }
  | { action: 'update'; collection: 'inbox_documents'; id: string; version: number; set: Fields; before: Fields };

export interface JournalEntryApplyBooks {
  transactions: readonly BankTransaction[];
  links: readonly BankLink[];
  documents?: readonly VersionedInboxDocument[];
}

export interface JournalEntryApplyContext {
  staged_operation_id: string;
  org_id: string;
  actor: string;
  now: string;
}

/** The id of the link a journal entry's apply creates: derived, so a retried journal creates the same one. */
export function journalEntryLinkId(
  ctx: Pick<JournalEntryApplyContext, 'org_id' | 'staged_operation_id'>,
  transactionId: string,
  entryId: string,
): string {
  return derivedId('lnk', `${ctx.org_id}:${ctx.staged_operation_id}:${transactionId}:${entryId}`);
}

export const journalEntryKindJournal: KindJournal = {
  plan: (plan, books, ctx) => withoutLinks(journalEntryJournal(plan as JournalEntryPlan, books, ctx)),
};

export function journalEntryJournal(
  plan: JournalEntryPlan,
  books: JournalEntryApplyBooks,
  ctx: JournalEntryApplyContext,
): Result<JournalEntryWrite[]> {
  const e = plan.entry;
  const writes: JournalEntryWrite[] = [
    {
      action: 'insert',
      collection: 'ledger_entries',
      id: plan.ledger_entry_id,
      doc: {
        entry_date: e.entry_date,
        description: e.description,
        reference: e.reference,
        counterparty_id: e.counterparty_id,
        currency: e.currency,
        lines: e.lines.map((l) => ({ account: l.account, debit_minor: l.debit_minor, credit_minor: l.credit_minor })),
        status: 'posted',
        reversal_of: null,
        reversed_by: null,
        version: 1,
      },
    },
  ];
  const link = plan.bank_link;
  if (link) {
    const txn = books.transactions.find((t) => t.id === link.bank_transaction_id);
    if (!txn) return failed('bank_transaction_missing', { id: link.bank_transaction_id });
    // The links read now are those staging saw (their versions are preconditions); the plan locked the transaction.
    if (unlinkedMinor(txn, books.links).unlinked_minor < link.amount_minor)
      return failed('bank_transaction_linked_since', { id: txn.id });
    writes.push({
      action: 'insert',
      collection: 'bank_links',
      id: journalEntryLinkId(ctx, txn.id, plan.ledger_entry_id),
      doc: {
        bank_transaction_id: txn.id,
        ledger_entry_id: plan.ledger_entry_id,
        amount_minor: link.amount_minor,
        created_at: ctx.now,
        created_by: ctx.actor,
        version: 1,
      },
    });
  }
  if (plan.document_id !== null) {
    const doc = (books.documents ?? []).find((d) => d.id === plan.document_id);
    if (!doc) return failed('inbox_document_missing', { id: plan.document_id });
    if (doc.status !== 'open') return failed('inbox_document_not_open', { id: doc.id, status: doc.status });
    writes.push({
      action: 'update',
      collection: 'inbox_documents',
      id: doc.id,
      version: doc.version,
      set: { status: 'booked', booked_entry_id: plan.ledger_entry_id },
      before: { status: doc.status, booked_entry_id: doc.booked_entry_id ?? null },
    });
  }
  return ok(writes);
}
