// The book reads' queries (docs/reference/book-reads.md): keyset pages of transactions,
// entries and inbox documents, each an indexed equality read on org_id and
// the filter's equality fields (shared/storage/indexes.ts), sorted by the
// page key and then `_id`, continuing strictly after the last position.
// Every query stays inside one organisation. On the embedded store with a
// PostgreSQL pool, a page is read from PostgreSQL's own btree index instead
// (shared/storage/postgres-pages.ts): the same spec, the same answer.
import type { Db, Document } from 'mongodb';
import type { BankAccount, BankTransaction, InboxDocument, LedgerEntry } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import type { PageQuery, PostgresPages } from './postgres-pages.js';
import { findOwnedById, isFerretDb } from './where-in.js';

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

/** The keyset condition: strictly after (or before, descending) `after` in (field, _id) order. */
function keyset(field: string, after: PagePosition | null, direction: 1 | -1): Document {
  if (!after) return {};
  const beyond = direction === 1 ? '$gt' : '$lt';
  return { $or: [{ [field]: { [beyond]: after.key } }, { [field]: after.key, _id: { [beyond]: after.id } }] };
}

/** The MongoDB filter of a page: equalities first (the GIN-indexed part FerretDB pushes down), then the range and the keyset. */
function where(q: PageQuery): Document {
  const out: Document = {};
  for (const [k, v] of Object.entries(q.equalities)) if (v !== undefined) out[k] = v;
  if (q.from !== undefined || q.to !== undefined) {
    out[q.key] = { ...(q.from === undefined ? {} : { $gte: q.from }), ...(q.to === undefined ? {} : { $lte: q.to }) };
  }
  // A range and a keyset on the same field: the keyset's $or carries its own bound, the range stays top level.
  return { ...out, ...keyset(q.key, q.after, q.direction) };
}

/**
 * One page's stored documents: from PostgreSQL's own index on the embedded
 * store when the API has a pool on it (shared/storage/postgres-pages.ts),
 * else (MongoDB, or PostgreSQL cannot answer) the MongoDB query.
 */
async function readPage(db: Db, embedded: PostgresPages | null, q: PageQuery): Promise<Document[]> {
  if (embedded && (await isFerretDb(db))) {
    const docs = await embedded.page(db, q);
    if (docs) return docs;
  }
  return db
    .collection(q.collection)
    .find(where(q))
    .sort({ [q.key]: q.direction, _id: q.direction })
    .limit(q.limit)
    .toArray();
}

/** Up to `limit` transactions after `after`, by (booking_date, id). */
export async function transactionsPage(
  db: Db,
  orgId: string,
  filter: TransactionFilter,
  after: PagePosition | null,
  limit: number,
  embedded: PostgresPages | null = null,
): Promise<BankTransaction[]> {
  const docs = await readPage(db, embedded, {
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
  embedded: PostgresPages | null = null,
): Promise<LedgerEntry[]> {
  const docs = await readPage(db, embedded, {
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
  embedded: PostgresPages | null = null,
): Promise<InboxDocument[]> {
  const docs = await readPage(db, embedded, {
    collection: collections(db).inboxDocuments.collectionName,
    equalities: { org_id: orgId, status },
    key: 'received_at',
    after,
    direction: -1,
    limit,
  });
  return docs.map((d) => fromStored<InboxDocument>(d as Stored<InboxDocument>));
}

export async function findInboxDocument(db: Db, orgId: string, id: string): Promise<InboxDocument | null> {
  const doc = await findOwnedById(db, collections(db).inboxDocuments, orgId, id);
  return doc ? fromStored<InboxDocument>(doc) : null;
}

export async function findTransaction(
  db: Db,
  orgId: string,
  id: string,
  embedded: PostgresPages | null = null,
): Promise<BankTransaction | null> {
  const doc = await findOwnedById(db, collections(db).bankTransactions, orgId, id, undefined, embedded);
  return doc ? fromStored<BankTransaction>(doc) : null;
}

/** Every bank account of the organisation, by id (an organisation has a handful). */
export async function listAccounts(db: Db, orgId: string): Promise<BankAccount[]> {
  const docs = await collections(db).bankAccounts.find({ org_id: orgId }).sort({ _id: 1 }).toArray();
  return docs.map((d) => fromStored<BankAccount>(d));
}
