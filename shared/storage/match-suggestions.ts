// What match suggestions read (docs/reference/http-api.md §8.2) beyond the
// entries' open amounts (entry-open-amounts.ts), and the declines they
// remember. Declines are inserted by
// `_id` (declining twice is one decline) and read by the (org_id,
// bank_transaction_id) index.
import type { Db, Document } from 'mongodb';
import type { InboxDocument } from '../domain/books.js';
import { collections, type MatchDeclineDoc } from './collections.js';
import { storeAdapter } from './store-adapter.js';
import { isUniqueViolation } from './unique-violation.js';

type OpenDocument = Pick<InboxDocument, 'id' | 'received_at' | 'extracted'>;

function withId<T>(doc: Document): T {
  const { _id, ...rest } = doc;
  return { id: _id as string, ...rest } as T;
}

/**
 * The open inbox documents whose extracted currency and total are these (a
 * receipt that could be attached), by the (org_id, status,
 * extracted.total_minor) index (shared/storage/indexes.ts); the fields are
 * checked again here, as a stored document may hold them in another type.
 */
export async function readOpenDocuments(
  db: Db,
  orgId: string,
  currency: string,
  totalMinor: number,
): Promise<OpenDocument[]> {
  const docs = await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).inboxDocuments.collectionName,
    equalities: { org_id: orgId, status: 'open', 'extracted.total_minor': totalMinor, 'extracted.currency': currency },
    fields: ['received_at', 'extracted'],
  });
  return docs
    .map((d) => withId<OpenDocument>(d))
    .filter((d) => d.extracted?.currency === currency && d.extracted.total_minor === totalMinor);
}

export interface Declines {
  entry_ids: Set<string>;
  document_ids: Set<string>;
  count: number;
}

/** The entries and documents declined for this transaction. */
export async function findDeclines(db: Db, orgId: string, transactionId: string): Promise<Declines> {
  const docs = await collections(db)
    .matchDeclines.find(
      { org_id: orgId, bank_transaction_id: transactionId },
      { projection: { ledger_entry_id: 1, document_id: 1 } },
    )
    .toArray();
  const entryIds = new Set<string>();
  const documentIds = new Set<string>();
  for (const d of docs) {
    if (d.ledger_entry_id) entryIds.add(d.ledger_entry_id);
    if (d.document_id) documentIds.add(d.document_id);
  }
  return { entry_ids: entryIds, document_ids: documentIds, count: docs.length };
}

/** Records each decline by its `_id`; one already there is the same decline (a retry, or declined before). */
export async function insertDeclines(
  db: Db,
  orgId: string,
  transactionId: string,
  declined: { ledger_entry_ids: readonly string[]; document_id: string | null },
  by: { actor: string; at: string },
): Promise<void> {
  const docs: MatchDeclineDoc[] = [
    ...declined.ledger_entry_ids.map((id) => ({
      _id: `${orgId}:${transactionId}:le:${id}`,
      org_id: orgId,
      bank_transaction_id: transactionId,
      ledger_entry_id: id,
      document_id: null,
      created_at: by.at,
      created_by: by.actor,
    })),
    ...(declined.document_id === null
      ? []
      : [
          {
            _id: `${orgId}:${transactionId}:doc:${declined.document_id}`,
            org_id: orgId,
            bank_transaction_id: transactionId,
            ledger_entry_id: null,
            document_id: declined.document_id,
            created_at: by.at,
            created_by: by.actor,
          },
        ]),
  ];
  const c = collections(db).matchDeclines;
  for (const doc of docs) {
    try {
      await c.insertOne(doc);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
}

/** How many declines the transaction has. */
export async function countDeclines(db: Db, orgId: string, transactionId: string): Promise<number> {
  return collections(db).matchDeclines.countDocuments({ org_id: orgId, bank_transaction_id: transactionId });
}
