// The shape of a books import file (docs/guide/importing-books.md, docs/reference/http-api.md §2): one
// organisation and its records, `id` in place of `_id`, no org_id on records.
// `version` and the nullable link fields may be absent; the importer fills
// them in.
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  InboxDocument,
  LedgerAccount,
  LedgerEntry,
  Org,
} from './books.js';

type Loose<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export interface BooksFile {
  org: Loose<Org, 'version'>;
  /** The chart of accounts; absent: the file says nothing about it (a stored chart is kept). */
  accounts?: LedgerAccount[];
  ledger_entries: Loose<LedgerEntry, 'version' | 'reversal_of' | 'reversed_by'>[];
  bank_accounts: Loose<BankAccount, 'version'>[];
  bank_transactions: Loose<BankTransaction, 'version' | 'reconciliation_id'>[];
  bank_links: Loose<BankLink, 'version'>[];
  inbox_documents: InboxDocument[];
}
