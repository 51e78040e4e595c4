// Reads of the receipts inbox, always inside one organisation.
import type { Db, Document } from 'mongodb';
import type { InboxDocument } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import { findWhereIn } from './where-in.js';
import { storeAdapter } from './store-adapter.js';

/** The fields duplicate grouping reads, and the file's name, type and size the overview's members show; nothing else is loaded. */
export type GroupableInboxDocument = Pick<InboxDocument, 'id' | 'received_at' | 'status' | 'extracted'> & {
  file: Pick<InboxDocument['file'], 'sha256' | 'name' | 'mime' | 'size'>;
};

const GROUPING_PROJECTION = {
  _id: 1,
  received_at: 1,
  status: 1,
  'file.sha256': 1,
  'file.name': 1,
  'file.mime': 1,
  'file.size': 1,
  'extracted.vendor_name': 1,
  'extracted.vendor_tax_id': 1,
  'extracted.invoice_number': 1,
  'extracted.invoice_date': 1,
  'extracted.total_minor': 1,
  'extracted.currency': 1,
} as const;

/** A document cut to GROUPING_PROJECTION, as the driver's projection gives it: the named sub-fields of `file` and `extracted` that it has. */
function groupingFields(doc: Document): Document {
  const pick = (from: unknown, prefix: string): Document | undefined => {
    if (from === null || typeof from !== 'object' || Array.isArray(from)) return undefined;
    const out: Document = {};
    for (const path of Object.keys(GROUPING_PROJECTION)) {
      if (!path.startsWith(prefix)) continue;
      const key = path.slice(prefix.length);
      if (key in (from as Document)) out[key] = (from as Document)[key] as unknown;
    }
    return out;
  };
  const out: Document = { _id: doc._id as unknown };
  for (const key of ['received_at', 'status'] as const) if (key in doc) out[key] = doc[key] as unknown;
  const file = pick(doc.file, 'file.');
  if (file) out.file = file;
  const extracted = pick(doc.extracted, 'extracted.');
  if (extracted) out.extracted = extracted;
  return out;
}

/**
 * The organisation's open and booked documents (archived ones never take
 * part in grouping), projected to the grouping fields. One equality query per
 * status on the (org_id, status) index: FerretDB pushes equality down to
 * PostgreSQL but filters `status: {$in: …}` itself, which measured twice as
 * slow on 10,000 documents.
 */
export async function findGroupableInboxDocuments(db: Db, orgId: string): Promise<GroupableInboxDocument[]> {
  const inbox = collections(db).inboxDocuments;
  const perStatus = await Promise.all(
    (['open', 'booked'] as const).map(async (status) => {
      // The whole `file` and `extracted` objects are read and cut down here: on FerretDB 1.x the store port reads them in SQL, where each document is otherwise converted and sent whole however it is projected (docs/reference/book-reads.md "Cost").
      const docs = await (
        await storeAdapter(db)
      ).fields({
        collection: inbox.collectionName,
        equalities: { org_id: orgId, status },
        index: 'page',
        fields: ['_id', 'received_at', 'status', 'file', 'extracted'],
      });
      return docs.map(groupingFields);
    }),
  );
  return perStatus.flat().map((doc) => {
    const record = fromStored(doc as Stored<InboxDocument>);
    return {
      ...record,
      file: record.file ?? { sha256: '', name: '', mime: '', size: 0 },
      extracted: record.extracted ?? {},
    };
  });
}

/** The organisation's documents with these ids, whole and with their versions (a duplicate resolution's members). */
export async function findInboxDocumentsByIds(
  db: Db,
  orgId: string,
  ids: readonly string[],
): Promise<Array<InboxDocument & { version: number; archived_reason?: string | null }>> {
  const docs = await findWhereIn(db, collections(db).inboxDocuments, orgId, '_id', ids);
  return docs.map((doc) =>
    fromStored(doc as Stored<InboxDocument & { version: number; archived_reason?: string | null }>),
  );
}
