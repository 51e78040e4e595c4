// Selective, indexed reads of the books, always inside one organisation.
// Jobs load only the scope they need (FerretDB scans are slow).
import type { Db, Filter } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, LedgerEntry, Org } from '../domain/books.js';
import { collections, type OrgDoc } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import type { PostgresPages } from './postgres-pages.js';
import { findById, findByIdsInSql, findOwnedById, findOwnedWhereIn, isFerretDb } from './where-in.js';

/** Past this many ids the OR of containments grows long; where-in.ts's paths take over (a page is at most 500). */
const EMBEDDED_KEYS_MAX = 500;

/** `embedded` (here and below): the pool on FerretDB's PostgreSQL, which reads by id in SQL (where-in.ts findById); null: the driver. */
export async function findOrg(db: Db, orgId: string, embedded: PostgresPages | null = null): Promise<Org | null> {
  const doc = await findById(db, collections(db).orgs, orgId, undefined, embedded);
  if (!doc) return null;
  const { _id, ...rest } = doc as OrgDoc;
  return { id: _id, ...rest };
}

export async function findEntry(
  db: Db,
  orgId: string,
  id: string,
  embedded: PostgresPages | null = null,
): Promise<LedgerEntry | null> {
  const doc = await findOwnedById(db, collections(db).ledgerEntries, orgId, id, undefined, embedded);
  return doc ? fromStored<LedgerEntry>(doc) : null;
}

export async function findAccount(
  db: Db,
  orgId: string,
  id: string,
  embedded: PostgresPages | null = null,
): Promise<BankAccount | null> {
  const doc = await findOwnedById(db, collections(db).bankAccounts, orgId, id, undefined, embedded);
  return doc ? fromStored<BankAccount>(doc) : null;
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

/** The transactions with these ids (of any account of the org); see where-in.ts for how. */
export async function findTransactionsByIds(
  db: Db,
  orgId: string,
  ids: readonly string[],
  embedded: PostgresPages | null = null,
): Promise<BankTransaction[]> {
  const viaSql =
    ids.length > 0 && ids.length <= EMBEDDED_KEYS_MAX
      ? await findByIdsInSql(db, 'bank_transactions', ids, undefined, embedded)
      : null;
  if (viaSql)
    return viaSql
      .filter((d) => d.org_id === orgId)
      .map((d) => fromStored<BankTransaction>(d as Stored<BankTransaction>));
  return (await findOwnedWhereIn(db, collections(db).bankTransactions, orgId, '_id', ids)).map((d) =>
    fromStored<BankTransaction>(d),
  );
}

/** The entries with these ids; see where-in.ts for how. */
export async function findEntriesByIds(db: Db, orgId: string, ids: readonly string[]): Promise<LedgerEntry[]> {
  return (await findOwnedWhereIn(db, collections(db).ledgerEntries, orgId, '_id', ids)).map((d) =>
    fromStored<LedgerEntry>(d),
  );
}

/**
 * The links whose `field` is one of `ids` (of these transactions, or to these
 * entries); see where-in.ts for how. With a pool on the embedded store's
 * PostgreSQL (a book page's links, a reversal's), one SQL query instead of
 * one FerretDB command per id: `org_id` equal and the field `= ANY`, on
 * FerretDB's btree of the two (postgres-pages.ts `where`). An OR of GIN
 * containments, one per id, cost PostgreSQL 3 ms to plan for a page's 50.
 */
export async function findLinks(
  db: Db,
  orgId: string,
  field: 'bank_transaction_id' | 'ledger_entry_id',
  ids: readonly string[],
  embedded: PostgresPages | null = null,
): Promise<BankLink[]> {
  if (embedded && ids.length > 0 && ids.length <= EMBEDDED_KEYS_MAX && (await isFerretDb(db))) {
    const docs = await embedded.where(db, {
      collection: 'bank_links',
      equalities: { org_id: orgId },
      any: { field, values: ids },
    });
    if (docs) return docs.map((d) => fromStored<BankLink>(d as Stored<BankLink>));
  }
  return (await findOwnedWhereIn(db, collections(db).bankLinks, orgId, field, ids)).map((d) => fromStored<BankLink>(d));
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
