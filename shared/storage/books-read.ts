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

/** FerretDB answers `$in` with huge lists slowly: ids are asked for in chunks of this many. */
export const IN_CHUNK_SIZE = 1000;
const IN_CHUNK_CONCURRENCY = 4;

/**
 * Run `read` over `ids` in chunks of IN_CHUNK_SIZE (a few chunks at a time)
 * and concatenate the answers, in no particular order.
 */
export async function readInChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK_SIZE) chunks.push(ids.slice(i, i + IN_CHUNK_SIZE));
  const out: T[] = [];
  for (let i = 0; i < chunks.length; i += IN_CHUNK_CONCURRENCY) {
    const answers = await Promise.all(chunks.slice(i, i + IN_CHUNK_CONCURRENCY).map(read));
    for (const answer of answers) for (const item of answer) out.push(item);
  }
  return out;
}

/** The transactions with these ids (of any account of the org), by `_id`, in `$in` chunks. */
export async function findTransactionsByIds(db: Db, orgId: string, ids: readonly string[]): Promise<BankTransaction[]> {
  return readInChunks(ids, (chunk) => findTransactions(db, orgId, { _id: { $in: chunk } }));
}

/** The links of these transactions, by the (org_id, bank_transaction_id) index, in `$in` chunks. */
export async function findLinksOfTransactions(db: Db, orgId: string, transactionIds: readonly string[]): Promise<BankLink[]> {
  return readInChunks(transactionIds, (chunk) => findLinks(db, orgId, { bank_transaction_id: { $in: chunk } }));
}

/**
 * An account's unreconciled transactions booked on or before `endDate`, only
 * id and booking date (the (org_id, bank_account_id, status, booking_date) index).
 */
export async function findUnreconciledThrough(db: Db, orgId: string, bankAccountId: string, endDate: string): Promise<Array<Pick<BankTransaction, 'id' | 'booking_date'>>> {
  const docs = await collections(db).bankTransactions
    .find({ org_id: orgId, bank_account_id: bankAccountId, status: 'unreconciled', booking_date: { $lte: endDate } }, { projection: { _id: 1, booking_date: 1 } })
    .toArray();
  return docs.map((d) => ({ id: d._id, booking_date: d.booking_date }));
}

/**
 * Up to this many ids, one equality query per id (EQUALITY_CONCURRENCY at a
 * time); more, `$in` in chunks. why: FerretDB 1.24 pushes only equality
 * filters down to PostgreSQL; a `$in` of any length, even one id, makes
 * FerretDB read every document of the org. Measured on an org of 20,000
 * links: 20 ids by equality 160 ms, by one `$in` 630 ms; 2,000 ids by
 * equality 11.4 s, by two `$in` chunks 1.6 s. MongoDB serves both from the index.
 */
export const EQUALITY_QUERY_MAX = 100;
const EQUALITY_CONCURRENCY = 16;

/** The links whose `field` is one of `ids`, by the (org_id, field) index. */
export async function findLinksWhereIn(db: Db, orgId: string, field: 'bank_transaction_id' | 'ledger_entry_id', ids: readonly string[]): Promise<BankLink[]> {
  if (ids.length <= EQUALITY_QUERY_MAX) return readEach(ids, (id) => findLinks(db, orgId, { [field]: id } as Filter<Stored<BankLink>>));
  return readInChunks(ids, (chunk) => findLinks(db, orgId, { [field]: { $in: chunk } } as Filter<Stored<BankLink>>));
}

/** The entries with these ids, by `_id`. */
export async function findEntriesByIds(db: Db, orgId: string, ids: readonly string[]): Promise<LedgerEntry[]> {
  if (ids.length <= EQUALITY_QUERY_MAX) return readEach(ids, async (id) => { const entry = await findEntry(db, orgId, id); return entry ? [entry] : []; });
  return readInChunks(ids, (chunk) => findEntries(db, orgId, { _id: { $in: chunk } }));
}

/** `read` once per value, EQUALITY_CONCURRENCY at a time; the answers concatenated in no particular order. */
async function readEach<T>(values: readonly string[], read: (value: string) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < values.length) {
      const value = values[next]!;
      next += 1;
      for (const item of await read(value)) out.push(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(EQUALITY_CONCURRENCY, values.length) }, lane));
  return out;
}
