// What applying a bank match writes (docs/design/staged-lifecycle.md "Apply"):
// one new link per pair, each inserted under an id derived from the operation
// and the pair, so a retried journal inserts the same ones
// (docs/design/staged-lifecycle.md "Crash safety"). The plan was checked
// against these very documents (their versions are its preconditions); what
// is checked again here is only what a plan that does not fit them would break.
import { derivedId } from '../../ids.js';
import {
  failed,
  type AppliedLink,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
  type KindJournal,
} from '../../domain/apply-journal.js';
import { ok, type Result } from '../../domain/result.js';

export const bankMatchJournal: KindJournal = {
  plan: (plan, books, ctx) => newLinksJournal(plan as NewLinksPlan, books, ctx),
};

/** The id of the link an apply creates for one pair (transaction, entry) of a plan that names new links (newLinksJournal). */
export function pairLinkId(
  ctx: Pick<JournalContext, 'org_id' | 'staged_operation_id'>,
  transactionId: string,
  entryId: string,
): string {
  return derivedId('lnk', `${ctx.org_id}:${ctx.staged_operation_id}:pair:${transactionId}:${entryId}`);
}

export interface NewLinksPlan {
  pairs: ReadonlyArray<{ bank_transaction_id: string; ledger_entry_id: string; amount_minor: number }>;
}

function newLinksJournal(
  plan: NewLinksPlan,
  books: ApplyBooks,
  ctx: JournalContext,
): Result<{ writes: JournalWrite[]; links: AppliedLink[] }> {
  const transactions = new Set(books.transactions.map((t) => t.id));
  const entries = new Set(books.entries.map((e) => e.id));
  const writes: JournalWrite[] = [];
  const links: AppliedLink[] = [];
  for (const [index, pair] of plan.pairs.entries()) {
    if (!transactions.has(pair.bank_transaction_id))
      return failed('bank_transaction_missing', { id: pair.bank_transaction_id });
    if (!entries.has(pair.ledger_entry_id)) return failed('ledger_entry_missing', { id: pair.ledger_entry_id });
    const linked = books.links.find(
      (l) => l.bank_transaction_id === pair.bank_transaction_id && l.ledger_entry_id === pair.ledger_entry_id,
    );
    if (linked) return failed('bank_link_exists', { id: linked.id });
    const id = pairLinkId(ctx, pair.bank_transaction_id, pair.ledger_entry_id);
    writes.push({
      action: 'insert',
      collection: 'bank_links',
      id,
      doc: {
        bank_transaction_id: pair.bank_transaction_id,
        ledger_entry_id: pair.ledger_entry_id,
        amount_minor: pair.amount_minor,
        created_at: ctx.now,
        created_by: ctx.actor,
        version: 1,
      },
    });
    links.push({ action_index: index, link_id: id });
  }
  return ok({ writes, links });
}
