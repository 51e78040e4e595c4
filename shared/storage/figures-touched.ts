// Which kept figures (shared/storage/book-figures.ts) a journal's writes may
// have moved: the counterparties and accounts of every transaction and entry
// written, and of those a written link joins, both as the writes left them
// (read now) and as they were (the writes' own fields).
import type { Db } from 'mongodb';
import type { JournalWrite } from '../domain/apply-journal.js';
import type { TouchedFigures } from './book-figures.js';
import { collections } from './collections.js';
import { storeAdapter } from './store-adapter.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The fields a write carries: what it inserted or deleted, and what an update set and replaced. */
function fieldsOf(w: JournalWrite): Array<Record<string, unknown>> {
  return w.action === 'update' ? [w.set, w.before] : [w.doc];
}

/** Whether a write changes what every figure depends on: the organisation's settlement accounts. */
export function movesEveryFigure(writes: readonly JournalWrite[]): boolean {
  return writes.some((w) => w.collection === 'orgs' && fieldsOf(w).some((f) => 'settlement_accounts' in f));
}

export async function touchedByWrites(db: Db, orgId: string, writes: readonly JournalWrite[]): Promise<TouchedFigures> {
  const counterparties = new Set<string>();
  const accounts = new Set<string>();
  const transactions = new Set<string>();
  const entries = new Set<string>();
  const linksToRead = new Set<string>();
  const add = (set: Set<string>, v: unknown): void => {
    const s = str(v);
    if (s !== null) set.add(s);
  };
  for (const w of writes) {
    if (w.collection === 'bank_transactions') {
      transactions.add(w.id);
      for (const f of fieldsOf(w)) {
        add(counterparties, f.counterparty_id);
        add(accounts, f.bank_account_id);
      }
    } else if (w.collection === 'ledger_entries') {
      entries.add(w.id);
      for (const f of fieldsOf(w)) add(counterparties, f.counterparty_id);
    } else if (w.collection === 'bank_links') {
      if (w.action === 'update') linksToRead.add(w.id);
      for (const f of fieldsOf(w)) {
        add(transactions, f.bank_transaction_id);
        add(entries, f.ledger_entry_id);
      }
    }
  }
  const c = collections(db);
  const port = await storeAdapter(db);
  if (linksToRead.size > 0)
    for (const l of await port.findByIds(c.bankLinks.collectionName, [...linksToRead], {
      owner: orgId,
      fields: ['bank_transaction_id', 'ledger_entry_id'],
    })) {
      add(transactions, l.bank_transaction_id);
      add(entries, l.ledger_entry_id);
    }
  const [txns, ents] = await Promise.all([
    transactions.size === 0
      ? []
      : port.findByIds(c.bankTransactions.collectionName, [...transactions], {
          owner: orgId,
          fields: ['counterparty_id', 'bank_account_id'],
        }),
    entries.size === 0
      ? []
      : port.findByIds(c.ledgerEntries.collectionName, [...entries], { owner: orgId, fields: ['counterparty_id'] }),
  ]);
  for (const t of txns) {
    add(counterparties, t.counterparty_id);
    add(accounts, t.bank_account_id);
  }
  for (const e of ents) add(counterparties, e.counterparty_id);
  return { counterparties, accounts };
}
