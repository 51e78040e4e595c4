// Selective, indexed reads of the books, always inside one organisation.
// Jobs load only the scope they need (FerretDB scans are slow).
import type { Db, Filter } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Org } from '../domain/books.js';
import { collections, type OrgDoc } from './collections.js';
import { fromStored, type Stored } from './documents.js';

export async function findOrg(db: Db, orgId: string): Promise<Org | null> {
  const doc = await collections(db).orgs.findOne({ _id: orgId });
  if (!doc) return null;
  const { _id, ...rest } = doc as OrgDoc;
  return { id: _id, ...rest };
}

export async function findEntry(db: Db, orgId: string, id: string): Promise<LedgerEntry | null> {
  const doc = await collections(db).ledgerEntries.findOne({ _id: id, org_id: orgId });
  return doc ? fromStored<LedgerEntry>(doc) : null;
}

export async function findEntries(db: Db, orgId: string, filter: Filter<Stored<LedgerEntry>>): Promise<LedgerEntry[]> {
  const docs = await collections(db).ledgerEntries.find({ ...filter, org_id: orgId }).toArray();
  return docs.map((d) => fromStored<LedgerEntry>(d));
}

export async function findAccount(db: Db, orgId: string, id: string): Promise<BankAccount | null> {
  const doc = await collections(db).bankAccounts.findOne({ _id: id, org_id: orgId });
  return doc ? fromStored<BankAccount>(doc) : null;
}

export async function findTransactions(db: Db, orgId: string, filter: Filter<Stored<BankTransaction>>): Promise<BankTransaction[]> {
  const docs = await collections(db).bankTransactions.find({ ...filter, org_id: orgId }).toArray();
  return docs.map((d) => fromStored<BankTransaction>(d));
}

export async function findLinks(db: Db, orgId: string, filter: Filter<Stored<BankLink>>): Promise<BankLink[]> {
  const docs = await collections(db).bankLinks.find({ ...filter, org_id: orgId }).toArray();
  return docs.map((d) => fromStored<BankLink>(d));
}
