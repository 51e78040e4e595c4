// What applying a reversal writes (docs/design/staged-lifecycle.md "Apply"):
// post the reversing entry, mark the original reversed, delete its bank
// links. Pure.
import { derivedId } from '../../ids.js';
import {
  failed,
  linkFields,
  withoutLinks,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
  type KindJournal,
} from '../../domain/apply-journal.js';
import { ok, type Result } from '../../domain/result.js';
import type { ReversalPlan } from './plan.js';

export const ledgerReversalJournal: KindJournal = {
  plan: (plan, books, ctx) => withoutLinks(reversalJournal(plan as ReversalPlan, books, ctx)),
};

/** The id of the reversing entry a reversal's apply posts: derived, so a retried journal posts the same one. */
export function reversingEntryId(ctx: Pick<JournalContext, 'org_id' | 'staged_operation_id'>): string {
  return derivedId('le', `${ctx.org_id}:${ctx.staged_operation_id}:reversing_entry`);
}

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
