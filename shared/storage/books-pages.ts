// The book reads' queries (docs/reference/book-reads.md): keyset pages of transactions,
// entries and inbox documents, each an indexed equality read on org_id and
// the filter's equality fields (shared/storage/indexes.ts), sorted by the
// page key and then `_id`, continuing strictly after the last position.
// Every query stays inside one organisation. A page is read through the store
// port (shared/storage/port.ts `page`): on FerretDB 1.x from PostgreSQL's own
// btree index (docs/indexes.md "Pages from PostgreSQL's own index"), the same
// spec and the same answer as the driver's query.
import type { Db, Document } from 'mongodb';
import type { BankAccount, BankTransaction, InboxDocument, LedgerEntry } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import type { PageQuery } from './port.js';
import { storeAdapter } from './store-adapter.js';
import { findOwnedById } from './where-in.js';

/** Where a page continues: after (key, id) in the list's order. */
export interface PagePosition {
  key: string;
  id: string;
}

export interface TransactionFilter {
  bank_account_id?: string;
  status?: 'unreconciled' | 'reconciled';
  counterparty_id?: string;
  from?: string;
  to?: string;
}

export interface EntryFilter {
  counterparty_id?: string;
  status?: 'posted' | 'reversed';
  reference?: string;
  from?: string;
  to?: string;
}

/** One page's stored documents, from the store port (shared/storage/port.ts `page`). */
async function readPage(db: Db, q: PageQuery): Promise<Document[]> {
  return (await storeAdapter(db)).page(q);
}

/** Up to `limit` transactions after `after`, by (booking_date, id). */
export async function transactionsPage(
  db: Db,
  orgId: string,
  filter: TransactionFilter,
  after: PagePosition | null,
  limit: number,
): Promise<BankTransaction[]> {
  const docs = await readPage(db, {
    collection: collections(db).bankTransactions.collectionName,
    equalities: {
      org_id: orgId,
      bank_account_id: filter.bank_account_id,
      status: filter.status,
      counterparty_id: filter.counterparty_id,
    },
    key: 'booking_date',
    from: filter.from,
    to: filter.to,
    after,
    direction: 1,
    limit,
  });
  return docs.map((d) => fromStored<BankTransaction>(d as Stored<BankTransaction>));
}

/** Up to `limit` ledger entries after `after`, by (entry_date, id). */
export async function entriesPage(
  db: Db,
  orgId: string,
  filter: EntryFilter,
  after: PagePosition | null,
  limit: number,
): Promise<LedgerEntry[]> {
  const docs = await readPage(db, {
    collection: collections(db).ledgerEntries.collectionName,
    equalities: {
      org_id: orgId,
      counterparty_id: filter.counterparty_id,
      status: filter.status,
      reference: filter.reference,
    },
    key: 'entry_date',
    from: filter.from,
    to: filter.to,
    after,
    direction: 1,
    limit,
  });
  return docs.map((d) => fromStored<LedgerEntry>(d as Stored<LedgerEntry>));
}

/** Up to `limit` inbox documents after `after`, newest first: by (received_at, id) descending. */
export async function inboxDocumentsPage(
  db: Db,
  orgId: string,
  status: string | undefined,
  after: PagePosition | null,
  limit: number,
): Promise<InboxDocument[]> {
  const docs = await readPage(db, {
    collection: collections(db).inboxDocuments.collectionName,
    equalities: { org_id: orgId, status },
    key: 'received_at',
    after,
    direction: -1,
    limit,
  });
  return docs.map((d) => documentRead(d as Stored<InboxDocument>));
}

/**
 * A document as the reads answer it: `archived_reason` and `booked_entry_id`
 * only while it has one (docs/reference/book-reads.md: absent otherwise),
 * whether the field was never written or a revert or an undo set it back to null.
 */
function documentRead(doc: Stored<InboxDocument>): InboxDocument {
  const read = fromStored<InboxDocument & { archived_reason?: string | null }>(doc);
  const { archived_reason, booked_entry_id, ...rest } = read;
  return {
    ...rest,
    ...(archived_reason !== null && archived_reason !== undefined ? { archived_reason } : {}),
    ...(booked_entry_id !== null && booked_entry_id !== undefined ? { booked_entry_id } : {}),
  };
}

export async function findInboxDocument(db: Db, orgId: string, id: string): Promise<InboxDocument | null> {
  const doc = await findOwnedById(db, collections(db).inboxDocuments, orgId, id);
  return doc ? documentRead(doc) : null;
}

export async function findTransaction(db: Db, orgId: string, id: string): Promise<BankTransaction | null> {
  const doc = await (await storeAdapter(db)).findOwnedById(collections(db).bankTransactions.collectionName, orgId, id);
  return doc ? fromStored<BankTransaction>(doc as Stored<BankTransaction>) : null;
}

/** Every bank account of the organisation, by id (an organisation has a handful). */
export async function listAccounts(db: Db, orgId: string): Promise<BankAccount[]> {
  const docs = await collections(db).bankAccounts.find({ org_id: orgId }).sort({ _id: 1 }).toArray();
  return docs.map((d) => fromStored<BankAccount>(d));
}
