// The counterparty list of one bank account (docs/reference/book-reads.md
// "Computed figures"): a grouping over the whole account and the whole
// organisation's posted entries, so it is computed here rather than in the
// API (the API serves plain indexed reads only). Read only; the figures are
// the domain's (shared/domain/book-reads.ts), the reads project the fields
// those rules use (shared/storage/books-whole.ts).
import type { Db } from 'mongodb';
import {
  counterpartyRows,
  nameOffAccount,
  offAccountCounterparties,
  type CounterpartyRow,
} from '../../shared/domain/book-reads.js';
import type { CounterpartiesListInput } from '../../shared/queue/read-jobs.js';
import { findOrg } from '../../shared/storage/books-read.js';
import { namingTransactions, readCounterpartyBooks } from '../../shared/storage/books-whole.js';

export async function listCounterparties(
  db: Db,
  orgId: string,
  input: CounterpartiesListInput,
): Promise<{ items: CounterpartyRow[] }> {
  const [org, books] = await Promise.all([findOrg(db, orgId), readCounterpartyBooks(db, orgId, input.bank_account_id)]);
  const rows = counterpartyRows(books.transactions, books.entries, books.links, org?.settlement_accounts ?? []);
  // Counterparties only open entries name: their latest bank name on any account of the organisation.
  const offAccount = offAccountCounterparties(rows, books.transactions);
  return { items: nameOffAccount(rows, offAccount, await namingTransactions(db, orgId, offAccount)) };
}
