// The book reads that need a whole account or a whole organisation
// (docs/reference/book-reads.md "Cost"): an account's figures, the
// counterparty list and the ledger's postings. Each reads only the fields its rule uses.
//
// why the SQL: through FerretDB 1.24 every document costs about 0.3 ms (read,
// converted, sent whole even when projected), so the 75,761 transactions of
// one account took over 20 s, beyond the API's store timeout. They go through
// the store port (shared/storage/port.ts `fields`, `latest`): on FerretDB 1.x
// SQL on PostgreSQL's own indexes that sends only the projected fields, else
// the driver's projected finds, the same answer.
import type { Db, Document } from 'mongodb';
import type {
  CounterpartyEntry,
  CounterpartyLink,
  CounterpartyTransaction,
  NamingTransaction,
} from '../domain/book-reads.js';
import type { BankTransaction } from '../domain/books.js';
import type {
  PostingAccount,
  PostingBooks,
  PostingEntry,
  PostingLink,
  PostingTransaction,
} from '../domain/ledger-postings.js';
import type { ExportBooks } from '../domain/ledger-export/journal.js';
import { collections } from './collections.js';
import type { FieldsQuery } from './port.js';
import { storeAdapter } from './store-adapter.js';

/** `q` through the store port (shared/storage/port.ts `fields`). */
export async function readFields(db: Db, q: FieldsQuery): Promise<Document[]> {
  return (await storeAdapter(db)).fields(q);
}

/** `_id` → `id`, as fromStored does for whole documents. */
function withId<T>(doc: Document): T {
  const { _id, ...rest } = doc;
  return { id: _id as string, ...rest } as T;
}

/** Amount and status of every transaction of an account: the (org_id, bank_account_id) page index (the account's balance needs them all). */
export async function accountAmounts(
  db: Db,
  orgId: string,
  bankAccountId: string,
): Promise<Array<Pick<BankTransaction, 'amount_minor' | 'status'>>> {
  const docs = await readFields(db, {
    collection: collections(db).bankTransactions.collectionName,
    equalities: { org_id: orgId, bank_account_id: bankAccountId },
    index: 'page',
    fields: ['amount_minor', 'status'],
  });
  return docs as Array<Pick<BankTransaction, 'amount_minor' | 'status'>>;
}

/** What the counterparty list computes from (shared/domain/book-reads.ts `counterpartyRows`). */
export interface CounterpartyBooks {
  transactions: CounterpartyTransaction[];
  entries: CounterpartyEntry[];
  links: CounterpartyLink[];
}

/**
 * The account's transactions, the organisation's posted entries and all its
 * links, each one read of the fields the rule uses: the (org_id,
 * bank_account_id) and (org_id, status) page indexes, the org_id GIN index
 * (links have no page order).
 */
export async function readCounterpartyBooks(db: Db, orgId: string, bankAccountId: string): Promise<CounterpartyBooks> {
  const c = collections(db);
  const [transactions, entries, links] = await Promise.all([
    readFields(db, {
      collection: c.bankTransactions.collectionName,
      equalities: { org_id: orgId, bank_account_id: bankAccountId },
      index: 'page',
      fields: ['_id', 'booking_date', 'amount_minor', 'counterparty_id', 'counterparty_name'],
    }),
    readFields(db, {
      collection: c.ledgerEntries.collectionName,
      equalities: { org_id: orgId, status: 'posted' },
      index: 'page',
      fields: ['_id', 'counterparty_id', 'currency', 'lines', 'status', 'reversal_of'],
    }),
    readFields(db, {
      collection: c.bankLinks.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
    }),
  ]);
  return {
    transactions: transactions.map((d) => withId<CounterpartyTransaction>(d)),
    entries: entries.map((d) => withId<CounterpartyEntry>(d)),
    links: links as CounterpartyLink[],
  };
}

const NAMING_FIELDS = ['_id', 'booking_date', 'counterparty_id', 'counterparty_name'];

/**
 * Transactions on any account of the organisation that name these
 * counterparties: the latest of each (the store port's `latest`; on FerretDB
 * 1.x its (org_id, counterparty_id, booking_date) page index read backwards
 * for one row).
 */
export async function namingTransactions(
  db: Db,
  orgId: string,
  counterpartyIds: readonly string[],
): Promise<NamingTransaction[]> {
  if (counterpartyIds.length === 0) return [];
  const docs = await (
    await storeAdapter(db)
  ).latest({
    collection: collections(db).bankTransactions.collectionName,
    equalities: { org_id: orgId },
    per: 'counterparty_id',
    values: counterpartyIds,
    key: 'booking_date',
    fields: NAMING_FIELDS,
  });
  return docs.map((d) => withId<NamingTransaction>(d));
}

/** Every document of the organisation in `collection`, only `fields` (the org_id GIN index: in no order). */
function wholeOrg(db: Db, orgId: string, collection: string, fields: readonly string[]): Promise<Document[]> {
  return readFields(db, { collection, equalities: { org_id: orgId }, index: 'gin', fields });
}

const POSTING_FIELDS = {
  accounts: ['_id', 'currency', 'ledger_account', 'opening_balance_minor'],
  entries: ['_id', 'entry_date', 'currency', 'lines'],
  transactions: ['_id', 'bank_account_id', 'booking_date', 'amount_minor', 'currency'],
  links: ['bank_transaction_id', 'ledger_entry_id', 'amount_minor'],
} as const;

/**
 * What the ledger's postings derive from (shared/domain/ledger-postings.ts):
 * every account, entry, transaction and link of the organisation, each read
 * of the fields the derivation uses.
 */
export async function readPostingBooks(
  db: Db,
  orgId: string,
  settlementAccounts: readonly string[],
): Promise<PostingBooks> {
  return readWholeBooks(db, orgId, settlementAccounts, POSTING_FIELDS);
}

/** What an export writes (shared/domain/ledger-export/journal.ts): the postings' fields and the names, texts and references. */
export async function readExportBooks(
  db: Db,
  orgId: string,
  settlementAccounts: readonly string[],
): Promise<Omit<ExportBooks, 'org_id' | 'through' | 'chart'>> {
  return readWholeBooks(db, orgId, settlementAccounts, {
    accounts: [...POSTING_FIELDS.accounts, 'name', 'reconciled_through'],
    entries: [...POSTING_FIELDS.entries, 'description', 'reference', 'counterparty_id', 'reversal_of', 'provenance'],
    transactions: [
      ...POSTING_FIELDS.transactions,
      'counterparty_id',
      'counterparty_name',
      'remittance_info',
      'bank_reference',
      'provenance',
    ],
    links: ['_id', ...POSTING_FIELDS.links, 'provenance'],
  }).then((books) => ({
    ...books,
    links: (books.links as unknown as Document[]).map((d) => withId<PostingLink & { id: string }>(d)),
  })) as Promise<Omit<ExportBooks, 'org_id' | 'through' | 'chart'>>;
}

async function readWholeBooks(
  db: Db,
  orgId: string,
  settlementAccounts: readonly string[],
  fields: { [K in keyof typeof POSTING_FIELDS]: readonly string[] },
): Promise<PostingBooks> {
  const c = collections(db);
  const [accounts, records, links] = await Promise.all([
    wholeOrg(db, orgId, c.bankAccounts.collectionName, fields.accounts),
    readEntriesAndTransactions(db, orgId, fields),
    wholeOrg(db, orgId, c.bankLinks.collectionName, fields.links),
  ]);
  return {
    settlementAccounts,
    accounts: accounts.map((d) => withId<PostingAccount>(d)),
    ...records,
    links: links as PostingLink[],
  };
}

/**
 * Every entry and bank transaction of the organisation, of the fields the
 * postings use (or more): what the ledger's postings and a closed period's
 * hash (shared/domain/period-hash.ts) are computed from.
 */
export async function readEntriesAndTransactions(
  db: Db,
  orgId: string,
  fields: Pick<{ [K in keyof typeof POSTING_FIELDS]: readonly string[] }, 'entries' | 'transactions'> = POSTING_FIELDS,
): Promise<Pick<PostingBooks, 'entries' | 'transactions'>> {
  const c = collections(db);
  const [entries, transactions] = await Promise.all([
    wholeOrg(db, orgId, c.ledgerEntries.collectionName, fields.entries),
    wholeOrg(db, orgId, c.bankTransactions.collectionName, fields.transactions),
  ]);
  return {
    entries: entries.map((d) => withId<PostingEntry>(d)),
    transactions: transactions.map((d) => withId<PostingTransaction>(d)),
  };
}
