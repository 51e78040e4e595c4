// Which kept figures (shared/storage/book-figures.ts) a journal's writes may
// have moved: the counterparties, accounts and days of every transaction and
// entry written, both as the writes leave them and as they were; of those a
// written link joins, the counterparties and the transaction's day (a link
// moves no account's sums and no posting on its entry's date); and the days
// of the transactions linked to an entry whose lines changed (its settlement
// account is where their postings go).
// The same whether read before, during or after the writes: what a write
// changes is in the write itself (an insert's or delete's document, an
// update's fields set and as they were), and the records read are read for
// fields the journal does not change (the apply journal runner reads it while
// the writes are made).
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

/** Whether a write changes what every figure depends on: the organisation's settlement accounts, a bank account's ledger account or currency. */
export function movesEveryFigure(writes: readonly JournalWrite[]): boolean {
  return writes.some(
    (w) =>
      (w.collection === 'orgs' && fieldsOf(w).some((f) => 'settlement_accounts' in f)) ||
      (w.collection === 'bank_accounts' &&
        w.action === 'update' &&
        fieldsOf(w).some((f) => 'ledger_account' in f || 'currency' in f)),
  );
}

export async function touchedByWrites(db: Db, orgId: string, writes: readonly JournalWrite[]): Promise<TouchedFigures> {
  const counterparties = new Set<string>();
  const accounts = new Set<string>();
  // Written records move every figure they count in; a link moves its transaction's counterparty and day (the
  // unlinked amount, the bank side's postings) and its entry's counterparty (the open amount), not an account's
  // sums nor the entry's day (shared/domain/ledger-postings.ts: a link's postings are on its transaction's date).
  const writtenTransactions = new Set<string>();
  const writtenEntries = new Set<string>();
  const linkedTransactions = new Set<string>();
  const linkedEntries = new Set<string>();
  const linksToRead = new Set<string>();
  const days = new Set<string>();
  const relined = new Set<string>();
  const add = (set: Set<string>, v: unknown): void => {
    const s = str(v);
    if (s !== null) set.add(s);
  };
  for (const w of writes) {
    if (w.collection === 'bank_transactions') {
      writtenTransactions.add(w.id);
      for (const f of fieldsOf(w)) {
        add(counterparties, f.counterparty_id);
        add(accounts, f.bank_account_id);
        add(days, f.booking_date);
      }
    } else if (w.collection === 'ledger_entries') {
      writtenEntries.add(w.id);
      if (w.action === 'update' && 'lines' in w.set) relined.add(w.id);
      for (const f of fieldsOf(w)) {
        add(counterparties, f.counterparty_id);
        add(days, f.entry_date);
      }
    } else if (w.collection === 'bank_links') {
      if (w.action === 'update') linksToRead.add(w.id);
      for (const f of fieldsOf(w)) {
        add(linkedTransactions, f.bank_transaction_id);
        add(linkedEntries, f.ledger_entry_id);
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
      add(linkedTransactions, l.bank_transaction_id);
      add(linkedEntries, l.ledger_entry_id);
    }
  if (relined.size > 0)
    for (const l of await port.where({
      collection: c.bankLinks.collectionName,
      equalities: { org_id: orgId },
      any: { field: 'ledger_entry_id', values: [...relined] },
      fields: ['bank_transaction_id'],
      owner: orgId,
    }))
      add(linkedTransactions, l.bank_transaction_id);
  // An update carries only the fields it changed: every record written or linked is read for the others.
  const transactions = [...new Set([...writtenTransactions, ...linkedTransactions])];
  const entries = [...new Set([...writtenEntries, ...linkedEntries])];
  const [txns, ents] = await Promise.all([
    transactions.length === 0
      ? []
      : port.findByIds(c.bankTransactions.collectionName, transactions, {
          owner: orgId,
          fields: ['counterparty_id', 'bank_account_id', 'booking_date'],
        }),
    entries.length === 0
      ? []
      : port.findByIds(c.ledgerEntries.collectionName, entries, {
          owner: orgId,
          fields: ['counterparty_id', 'entry_date'],
        }),
  ]);
  for (const t of txns) {
    add(counterparties, t.counterparty_id);
    add(days, t.booking_date);
    if (writtenTransactions.has(String(t._id))) add(accounts, t.bank_account_id);
  }
  for (const e of ents) {
    add(counterparties, e.counterparty_id);
    if (writtenEntries.has(String(e._id))) add(days, e.entry_date);
  }
  return { counterparties, accounts, days };
}
