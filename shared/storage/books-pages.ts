// The book reads' queries (docs/reference/book-reads.md): keyset pages of transactions,
// entries and inbox documents, each an indexed equality read on org_id and
// the filter's equality fields (shared/storage/indexes.ts), sorted by the
// page key and then `_id`, continuing strictly after the last position.
// Every query stays inside one organisation.
import type { Db, Document, Filter } from 'mongodb';
import type { BankAccount, BankTransaction, InboxDocument, LedgerEntry } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import { findOwnedById, findWhereIn } from './where-in.js';

/** Where a page continues: after (key, id) in the list's order. */
export interface PagePosition { key: string; id: string }

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

/** Date range on `field`, inclusive (ISO dates compare as strings). */
function range(from: string | undefined, to: string | undefined): Document | undefined {
  if (from === undefined && to === undefined) return undefined;
  return { ...(from === undefined ? {} : { $gte: from }), ...(to === undefined ? {} : { $lte: to }) };
}

/** The keyset condition: strictly after (or before, descending) `after` in (field, _id) order. */
function keyset(field: string, after: PagePosition | null, direction: 1 | -1): Document {
  if (!after) return {};
  const beyond = direction === 1 ? '$gt' : '$lt';
  return { $or: [{ [field]: { [beyond]: after.key } }, { [field]: after.key, _id: { [beyond]: after.id } }] };
}

/** Equalities first (the GIN-indexed part FerretDB pushes down), then the range and the keyset. */
function where(equalities: Record<string, string | undefined>, field: string, dates: Document | undefined, after: PagePosition | null, direction: 1 | -1): Document {
  const out: Document = {};
  for (const [k, v] of Object.entries(equalities)) if (v !== undefined) out[k] = v;
  if (dates) out[field] = dates;
  const more = keyset(field, after, direction);
  // A range and a keyset on the same field: the keyset's $or carries its own bound, the range stays top level.
  return { ...out, ...more };
}

/** Up to `limit` transactions after `after`, by (booking_date, id). */
export async function transactionsPage(db: Db, orgId: string, filter: TransactionFilter, after: PagePosition | null, limit: number): Promise<BankTransaction[]> {
  const query = where(
    { org_id: orgId, bank_account_id: filter.bank_account_id, status: filter.status, counterparty_id: filter.counterparty_id },
    'booking_date', range(filter.from, filter.to), after, 1,
  );
  const docs = await collections(db).bankTransactions.find(query as Filter<Stored<BankTransaction>>).sort({ booking_date: 1, _id: 1 }).limit(limit).toArray();
  return docs.map((d) => fromStored<BankTransaction>(d));
}

/** Up to `limit` ledger entries after `after`, by (entry_date, id). */
export async function entriesPage(db: Db, orgId: string, filter: EntryFilter, after: PagePosition | null, limit: number): Promise<LedgerEntry[]> {
  const query = where(
    { org_id: orgId, counterparty_id: filter.counterparty_id, status: filter.status, reference: filter.reference },
    'entry_date', range(filter.from, filter.to), after, 1,
  );
  const docs = await collections(db).ledgerEntries.find(query as Filter<Stored<LedgerEntry>>).sort({ entry_date: 1, _id: 1 }).limit(limit).toArray();
  return docs.map((d) => fromStored<LedgerEntry>(d));
}

/** Up to `limit` inbox documents after `after`, newest first: by (received_at, id) descending. */
export async function inboxDocumentsPage(db: Db, orgId: string, status: string | undefined, after: PagePosition | null, limit: number): Promise<InboxDocument[]> {
  const query = where({ org_id: orgId, status }, 'received_at', undefined, after, -1);
  const docs = await collections(db).inboxDocuments.find(query as Filter<Stored<InboxDocument>>).sort({ received_at: -1, _id: -1 }).limit(limit).toArray();
  return docs.map((d) => fromStored<InboxDocument>(d));
}

export async function findInboxDocument(db: Db, orgId: string, id: string): Promise<InboxDocument | null> {
  const doc = await findOwnedById(db, collections(db).inboxDocuments, orgId, id);
  return doc ? fromStored<InboxDocument>(doc) : null;
}

export async function findTransaction(db: Db, orgId: string, id: string): Promise<BankTransaction | null> {
  const doc = await findOwnedById(db, collections(db).bankTransactions, orgId, id);
  return doc ? fromStored<BankTransaction>(doc) : null;
}

/** Every bank account of the organisation, by id (an organisation has a handful). */
export async function listAccounts(db: Db, orgId: string): Promise<BankAccount[]> {
  const docs = await collections(db).bankAccounts.find({ org_id: orgId }).sort({ _id: 1 }).toArray();
  return docs.map((d) => fromStored<BankAccount>(d));
}

/** Amount and status of every transaction of an account: one indexed pass (the account's balance needs them all). */
export async function accountAmounts(db: Db, orgId: string, bankAccountId: string): Promise<Array<Pick<BankTransaction, 'amount_minor' | 'status'>>> {
  return collections(db).bankTransactions
    .find({ org_id: orgId, bank_account_id: bankAccountId }, { projection: { _id: 0, amount_minor: 1, status: 1 } })
    .toArray();
}

/** The entries of these counterparties (equality on counterparty_id per id, see where-in.ts). */
export async function entriesOfCounterparties(db: Db, orgId: string, counterpartyIds: readonly string[]): Promise<LedgerEntry[]> {
  return (await findWhereIn(db, collections(db).ledgerEntries, orgId, 'counterparty_id', counterpartyIds)).map((d) => fromStored<LedgerEntry>(d));
}

