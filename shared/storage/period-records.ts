// What a closed period is made of (docs/design/staged-lifecycle.md "Closed
// periods"): the organisation's ledger entries and bank transactions, with the
// fields the period's hash covers (shared/domain/period-hash.ts). Whole-
// organisation reads of a few fields through the store port, like the
// counterparty list's (shared/storage/books-whole.ts); only the worker runs them.
import type { Db } from 'mongodb';
import type { BankTransaction, IsoDate, LedgerEntry } from '../domain/books.js';
import { readEntriesAndTransactions, readFields } from './books-whole.js';
import { collections } from './collections.js';

export type PeriodEntry = Pick<LedgerEntry, 'id' | 'entry_date' | 'currency' | 'lines'>;
export type PeriodTransaction = Pick<
  BankTransaction,
  'id' | 'bank_account_id' | 'booking_date' | 'amount_minor' | 'currency'
>;

/** Every entry and transaction of the organisation (the hash keeps those of the period): the postings' read. */
export async function readPeriodRecords(
  db: Db,
  orgId: string,
): Promise<{ entries: PeriodEntry[]; transactions: PeriodTransaction[] }> {
  const { entries, transactions } = await readEntriesAndTransactions(db, orgId);
  return { entries: entries as PeriodEntry[], transactions: transactions as PeriodTransaction[] };
}

/** The dates of every entry and transaction of the organisation: how many lie in a period. */
export async function readBookDates(
  db: Db,
  orgId: string,
): Promise<{ entry_dates: IsoDate[]; transaction_dates: IsoDate[] }> {
  const c = collections(db);
  const [entries, transactions] = await Promise.all([
    readFields(db, {
      collection: c.ledgerEntries.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ['entry_date'],
    }),
    readFields(db, {
      collection: c.bankTransactions.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ['booking_date'],
    }),
  ]);
  return {
    entry_dates: entries.map((d) => d.entry_date as IsoDate),
    transaction_dates: transactions.map((d) => d.booking_date as IsoDate),
  };
}
