// Loading the documents a staged plan read (its preconditions), as they are
// now: their versions for the staleness check, and the records themselves
// for the apply journal (those of the books it reads: `read`, every one when
// absent; the others' versions alone: the store port's versionsByIds). Reads
// by id, per collection (see where-in.ts).
import type { Collection, Db, Document } from 'mongodb';
import type { ApplyBooks, JournalBook } from '../domain/apply-journal.js';
import type {
  BankAccount,
  BankLink,
  BankTransaction,
  LedgerEntry,
  Precondition,
  VersionedInboxDocument,
} from '../domain/books.js';
import { preconditionKey } from '../domain/preconditions.js';
import { collections } from './collections.js';
import { fromStored, versionsOf, type Stored } from './documents.js';
import { storeAdapter } from './store-adapter.js';

export async function loadPreconditionBooks(
  db: Db,
  orgId: string,
  preconditions: readonly Precondition[],
  read?: readonly JournalBook[],
): Promise<{ books: ApplyBooks; versions: Map<string, number> }> {
  const c = collections(db);
  const idsOf = (collection: Precondition['collection']) => [
    ...new Set(preconditions.filter((p) => p.collection === collection).map((p) => p.id)),
  ];
  const documentIds = idsOf('inbox_documents');
  // By `_id` through the store port (in SQL on FerretDB 1.x): through FerretDB a list past 1,000 ids was a pass over
  // the organisation's whole collection, every document converted (docs/indexes.md "Reads by id alone").
  const store = await storeAdapter(db);
  /** Whether the journal reads this book's records (ledger accounts are no book: read whole). */
  const readsWhole = (book: JournalBook | null): boolean => book === null || !read || read.includes(book);
  /** A book's records with these ids, and their versions: whole when the journal reads them, else their versions alone. */
  const byIds = async <T extends Document>(
    collection: Collection<T>,
    ids: readonly string[],
    book: JournalBook | null,
  ): Promise<{ docs: T[]; versions: Map<string, number> }> => {
    if (ids.length === 0) return { docs: [], versions: new Map() };
    if (!readsWhole(book))
      return { docs: [], versions: await store.versionsByIds(collection.collectionName, orgId, ids) };
    const docs = (await store.findByIds(collection.collectionName, ids, { owner: orgId })) as T[];
    return { docs, versions: versionsOf(docs) };
  };
  const [entries, accounts, transactions, links, documents, ledgerAccounts] = await Promise.all([
    byIds(c.ledgerEntries, idsOf('ledger_entries'), 'entries'),
    byIds(c.bankAccounts, idsOf('bank_accounts'), 'accounts'),
    byIds(c.bankTransactions, idsOf('bank_transactions'), 'transactions'),
    byIds(c.bankLinks, idsOf('bank_links'), 'links'),
    byIds(c.inboxDocuments, documentIds, 'documents'),
    byIds(c.ledgerAccounts, idsOf('ledger_accounts'), null),
  ]);
  const versions = new Map<string, number>();
  const orgIds = idsOf('orgs');
  for (const id of orgIds) {
    // Orgs are keyed by their own id, without org_id: only the caller's own org can be a precondition.
    const org = id === orgId ? await c.orgs.findOne({ _id: id }) : null;
    if (org) versions.set(preconditionKey('orgs', id), org.version);
  }
  const note = (collection: string, read: { versions: Map<string, number> }) => {
    for (const [id, version] of read.versions) versions.set(preconditionKey(collection, id), version);
  };
  note('ledger_entries', entries);
  note('bank_accounts', accounts);
  note('bank_transactions', transactions);
  note('bank_links', links);
  note('inbox_documents', documents);
  note('ledger_accounts', ledgerAccounts);
  const domain = <T extends { id: string }>(docs: Stored<T>[], book: JournalBook) =>
    readsWhole(book) ? docs.map((d) => fromStored<T>(d)) : [];
  return {
    books: {
      entries: domain<LedgerEntry>(entries.docs, 'entries'),
      accounts: domain<BankAccount>(accounts.docs, 'accounts'),
      transactions: domain<BankTransaction>(transactions.docs, 'transactions'),
      links: domain<BankLink>(links.docs, 'links'),
      ...(documentIds.length === 0
        ? {}
        : {
            documents: domain<VersionedInboxDocument>(
              documents.docs as unknown as Stored<VersionedInboxDocument>[],
              'documents',
            ),
          }),
    },
    versions,
  };
}
