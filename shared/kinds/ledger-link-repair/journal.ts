// What applying a link repair writes (docs/design/staged-lifecycle.md "Apply"),
// and the link each moved or new amount goes to. Pure.
import { derivedId } from '../../ids.js';
import { compareIds, type BankLink } from '../../domain/books.js';
import {
  failed,
  linkFields,
  type AppliedLink,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
  type KindJournal,
} from '../../domain/apply-journal.js';
import { ok, type Result } from '../../domain/result.js';
import type { LinkRepairPlan, RepairAction } from './plan.js';

export const ledgerLinkRepairJournal: KindJournal = {
  plan: (plan, books, ctx) => repairJournalWithLinks(plan as LinkRepairPlan, books, ctx),
  // Its transactions and entries are preconditions for their versions; the writes are the links'.
  books: ['links'],
};

/** The id of a link a repair's apply creates for (transaction, entry). */
export function repairLinkId(
  ctx: Pick<JournalContext, 'org_id' | 'staged_operation_id'>,
  transactionId: string,
  entryId: string,
): string {
  return derivedId('lnk', `${ctx.org_id}:${ctx.staged_operation_id}:${transactionId}:${entryId}`);
}

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

/** Values by (transaction id, entry id) (`pairKey`), each pair's in the order they were added. */
class PairIndex<V> {
  private readonly byPair = new Map<string, V[]>();
  add(pair: string, value: V): void {
    const values = this.byPair.get(pair);
    if (values) values.push(value);
    else this.byPair.set(pair, [value]);
  }
  get(pair: string): readonly V[] {
    return this.byPair.get(pair) ?? NONE;
  }
}
/** One key per (transaction, entry): the length prefix keeps any two pairs apart, whatever their ids hold. */
const pairKey = (transactionId: string, entryId: string): string =>
  `${transactionId.length}:${transactionId}${entryId}`;
const NONE: readonly never[] = [];

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
    storedByPair.add(pairKey(l.bank_transaction_id, l.ledger_entry_id), l);
  const touch = (id: string, seed: () => LinkState): LinkState => {
    let s = state.get(id);
    if (!s) {
      s = seed();
      state.set(id, s);
      order.push(id);
      touchedByPair.add(pairKey(s.current.bank_transaction_id, s.current.ledger_entry_id), id);
    }
    return s;
  };
  const existing = (id: string): LinkState | null => {
    const touched = state.get(id);
    if (touched) return touched;
    const stored = known.get(id);
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
    const pair = pairKey(transactionId, entryId);
    const touched = touchedByPair.get(pair).find((id) => state.get(id)!.current.amount_minor > 0);
    const stored = touched === undefined ? storedByPair.get(pair).find((l) => !state.has(l.id)) : undefined;
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

  const actions = plan.actions;
  for (let index = 0; index < actions.length; index += 1) {
    const action = actions[index]!;
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
      if (current.amount_minor > 0) {
        const doc = {
          bank_transaction_id: current.bank_transaction_id,
          ledger_entry_id: current.ledger_entry_id,
          amount_minor: current.amount_minor,
          created_at: current.created_at,
          created_by: current.created_by,
          version: 1,
        };
        writes.push({ action: 'insert', collection: 'bank_links', id, doc });
      }
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
