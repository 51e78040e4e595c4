// Selective, indexed reads of the books, always inside one organisation.
// Jobs load only the records they need (FerretDB scans are slow).
import type { Db, Filter } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Org } from '../domain/books.js';
import { collections, type OrgDoc } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import { storeAdapter } from './store-adapter.js';
import { findOwnedWhereIn } from './where-in.js';

/** Reads by id go through the store port (shared/storage/port.ts): on FerretDB 1.x in SQL by FerretDB's own `_id` btree. */
export async function findOrg(db: Db, orgId: string): Promise<Org | null> {
  const doc = await (await storeAdapter(db)).findById(collections(db).orgs.collectionName, orgId);
  if (!doc) return null;
  const { _id, ...rest } = doc as OrgDoc;
  return { id: _id, ...rest };
}

export async function findEntry(db: Db, orgId: string, id: string): Promise<LedgerEntry | null> {
  const doc = await (await storeAdapter(db)).findOwnedById(collections(db).ledgerEntries.collectionName, orgId, id);
  return doc ? fromStored<LedgerEntry>(doc as Stored<LedgerEntry>) : null;
}

export async function findAccount(db: Db, orgId: string, id: string): Promise<BankAccount | null> {
  const doc = await (await storeAdapter(db)).findOwnedById(collections(db).bankAccounts.collectionName, orgId, id);
  return doc ? fromStored<BankAccount>(doc as Stored<BankAccount>) : null;
}

export async function findTransactions(
  db: Db,
  orgId: string,
  filter: Filter<Stored<BankTransaction>>,
): Promise<BankTransaction[]> {
  const docs = await collections(db)
    .bankTransactions.find({ ...filter, org_id: orgId })
    .toArray();
  return docs.map((d) => fromStored<BankTransaction>(d));
}

/** The transactions with these ids (of any account of the org), through the store port's `findByIds`. */
export async function findTransactionsByIds(db: Db, orgId: string, ids: readonly string[]): Promise<BankTransaction[]> {
  const docs = await (
    await storeAdapter(db)
  ).findByIds(collections(db).bankTransactions.collectionName, ids, {
    owner: orgId,
  });
  return docs.map((d) => fromStored<BankTransaction>(d as Stored<BankTransaction>));
}

/** The entries with these ids; see where-in.ts for how. */
export async function findEntriesByIds(db: Db, orgId: string, ids: readonly string[]): Promise<LedgerEntry[]> {
  return (await findOwnedWhereIn(db, collections(db).ledgerEntries, orgId, '_id', ids)).map((d) =>
    fromStored<LedgerEntry>(d),
  );
}

/**
 * The links whose `field` is one of `ids` (of these transactions, or to these
 * entries), through the store port's `where`: the ids are globally unique
 * (docs/indexes.md "Reads by id alone"). On FerretDB 1.x one SQL query on its
 * btree of (org_id, field) instead of one FerretDB command per id.
 */
export async function findLinks(
  db: Db,
  orgId: string,
  field: 'bank_transaction_id' | 'ledger_entry_id',
  ids: readonly string[],
): Promise<BankLink[]> {
  const docs = await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).bankLinks.collectionName,
    equalities: { org_id: orgId },
    any: { field, values: ids },
    owner: orgId,
  });
  return docs.map((d) => fromStored<BankLink>(d as Stored<BankLink>));
}

/**
 * An account's unreconciled transactions booked on or before `endDate`, only
 * id and booking date (the (org_id, bank_account_id, status, booking_date) index).
 */
export async function findUnreconciledThrough(
  db: Db,
  orgId: string,
  bankAccountId: string,
  endDate: string,
): Promise<Array<Pick<BankTransaction, 'id' | 'booking_date'>>> {
  const docs = await collections(db)
    .bankTransactions.find(
      { org_id: orgId, bank_account_id: bankAccountId, status: 'unreconciled', booking_date: { $lte: endDate } },
      { projection: { _id: 1, booking_date: 1 } },
    )
    .toArray();
  return docs.map((d) => ({ id: d._id, booking_date: d.booking_date }));
}

/**
 * The posted entries of a counterparty with exactly this reference (a journal entry's duplicate warning),
 * on the (org_id, counterparty_id, entry_date) index.
 */
export async function findPostedEntriesWithReference(
  db: Db,
  orgId: string,
  counterpartyId: string,
  reference: string,
): Promise<LedgerEntry[]> {
  const docs = await collections(db)
    .ledgerEntries.find({ org_id: orgId, counterparty_id: counterpartyId, reference, status: 'posted' })
    .toArray();
  return docs.map((d) => fromStored<LedgerEntry>(d));
}
