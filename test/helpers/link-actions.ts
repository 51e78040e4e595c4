// Applying a link-repair plan's actions to a list of links, as the tests
// expect apply to (docs/reference/http-api.md "Repair ledger ↔ bank links by FIFO"; which link
// receives an amount is docs/design/decisions.md "Open questions"):
// a move or unlink takes its amount off `link_id` (deleted at 0); a move or
// link adds to the transaction's link to the entry, the newest by
// (created_at, id) when there are several, else a new link. Every action is
// checked against the links it names, so a plan that names a wrong link fails
// the test that applies it.
import { compareIds, type BankLink } from '../../shared/domain/books.js';
import type { RepairAction } from '../../shared/kinds/ledger-link-repair/plan.js';

/** When links created by applyActions were made; later than any link the tests build. */
export const APPLIED_LINK_CREATED_AT = '2025-12-31T00:00:00.000Z';

/** The links after `actions`; the input is not changed. New links are `lnk_new_000001`, `lnk_new_000002`, … */
export function applyActions(links: readonly BankLink[], actions: readonly RepairAction[]): BankLink[] {
  const byId = new Map(links.map((l) => [l.id, { ...l }]));
  const pairKey = (transactionId: string, entryId: string): string => `${transactionId} ${entryId}`;
  const byPair = new Map<string, Set<string>>();
  const index = (link: BankLink): void => {
    const key = pairKey(link.bank_transaction_id, link.ledger_entry_id);
    const ids = byPair.get(key);
    if (ids) ids.add(link.id);
    else byPair.set(key, new Set([link.id]));
  };
  for (const link of byId.values()) index(link);
  let created = 0;

  const takeOff = (linkId: string, transactionId: string, entryId: string, amount: number): void => {
    const link = byId.get(linkId);
    if (!link) throw new Error(`action names ${linkId}, which does not exist (any more)`);
    if (link.bank_transaction_id !== transactionId || link.ledger_entry_id !== entryId) {
      throw new Error(
        `action names ${linkId} for ${transactionId} → ${entryId}, but it links ${link.bank_transaction_id} → ${link.ledger_entry_id}`,
      );
    }
    if (!(amount > 0 && amount <= link.amount_minor))
      throw new Error(`cannot take ${amount} off ${linkId} (${link.amount_minor})`);
    link.amount_minor -= amount;
    if (link.amount_minor === 0) {
      byId.delete(linkId);
      byPair.get(pairKey(transactionId, entryId))?.delete(linkId);
    }
  };
  const addTo = (transactionId: string, entryId: string, amount: number): void => {
    if (!(amount > 0)) throw new Error(`cannot add ${amount} to ${transactionId} → ${entryId}`);
    let newest: BankLink | undefined;
    for (const id of byPair.get(pairKey(transactionId, entryId)) ?? []) {
      const link = byId.get(id);
      if (link && (!newest || (compareIds(link.created_at, newest.created_at) || compareIds(link.id, newest.id)) > 0))
        newest = link;
    }
    if (newest) {
      newest.amount_minor += amount;
      return;
    }
    created += 1;
    const link: BankLink = {
      id: `lnk_new_${String(created).padStart(6, '0')}`,
      bank_transaction_id: transactionId,
      ledger_entry_id: entryId,
      amount_minor: amount,
      created_at: APPLIED_LINK_CREATED_AT,
      created_by: 'apply',
      version: 1,
    };
    byId.set(link.id, link);
    index(link);
  };

  for (const action of actions) {
    switch (action.kind) {
      case 'move':
        takeOff(action.link_id, action.bank_transaction_id, action.from_ledger_entry_id, action.amount_minor);
        addTo(action.bank_transaction_id, action.to_ledger_entry_id, action.amount_minor);
        break;
      case 'link':
        addTo(action.bank_transaction_id, action.ledger_entry_id, action.amount_minor);
        break;
      case 'unlink':
        takeOff(action.link_id, action.bank_transaction_id, action.ledger_entry_id, action.amount_minor);
        break;
    }
  }
  return [...byId.values()];
}
