// The link repair's records read in SQL on FerretDB 1.x's own tables
// (docs/indexes.md "Worker reads in SQL"); the driver's read is
// shared/storage/repair-records-driver.ts.
import type { Db, WithId } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry } from '../../domain/books.js';
import { fromStored, type Stored } from '../documents.js';
import type { RepairRecords } from '../port.js';
import type { PostgresPages } from './postgres-pages.js';

/**
 * The repair records read in SQL (docs/indexes.md "Worker
 * reads in SQL"): four queries on FerretDB's own btree indexes, whatever the
 * record set's size, the documents decoded here instead of converted by FerretDB;
 * null when PostgreSQL cannot answer one of them (the caller then reads
 * through FerretDB).
 */
export async function readRepairRecordsInSql(
  db: Db,
  pages: PostgresPages,
  orgId: string,
  accountId: string,
  counterpartyId: string,
): Promise<RepairRecords | null> {
  const [transactionDocs, entryDocs] = await Promise.all([
    pages.where(db, {
      collection: 'bank_transactions',
      equalities: { org_id: orgId, bank_account_id: accountId, counterparty_id: counterpartyId },
    }),
    pages.where(db, {
      collection: 'ledger_entries',
      equalities: { org_id: orgId, counterparty_id: counterpartyId },
    }),
  ]);
  if (!transactionDocs || !entryDocs) return null;
  const transactions = transactionDocs.map((d) => fromStored<BankTransaction>(d as WithId<Stored<BankTransaction>>));
  const entries = entryDocs.map((d) => fromStored<LedgerEntry>(d as WithId<Stored<LedgerEntry>>));
  const [ofTransactions, toEntries] = await Promise.all([
    pages.where(db, {
      collection: 'bank_links',
      equalities: { org_id: orgId },
      any: { field: 'bank_transaction_id', values: transactions.map((t) => t.id) },
    }),
    pages.where(db, {
      collection: 'bank_links',
      equalities: { org_id: orgId },
      any: { field: 'ledger_entry_id', values: entries.map((e) => e.id) },
    }),
  ]);
  if (!ofTransactions || !toEntries) return null;
  const links = new Map<string, BankLink>();
  for (const doc of [...ofTransactions, ...toEntries])
    links.set(doc._id as string, fromStored<BankLink>(doc as WithId<Stored<BankLink>>));
  const loaded = new Set(entries.map((e) => e.id));
  const missing = [...new Set(ofTransactions.map((l) => l.ledger_entry_id as string).filter((id) => !loaded.has(id)))];
  // By `_id` alone (FerretDB's unique index), the owner checked here, as findEachEqual does.
  const others = await pages.where(db, {
    collection: 'ledger_entries',
    equalities: {},
    any: { field: '_id', values: missing },
  });
  if (!others) return null;
  const otherEntries = others
    .filter((d) => d.org_id === orgId)
    .map((d) => fromStored<LedgerEntry>(d as WithId<Stored<LedgerEntry>>));
  return { transactions, entries: [...entries, ...otherEntries], links: [...links.values()] };
}
