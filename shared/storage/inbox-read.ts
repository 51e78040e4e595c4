// Reads of the receipts inbox, always inside one organisation.
import type { Db } from 'mongodb';
import type { InboxDocument } from '../domain/books.js';
import { collections } from './collections.js';
import { fromStored, type Stored } from './documents.js';
import { findWhereIn } from './where-in.js';

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

/**
 * The organisation's open and booked documents (archived ones never take
 * part in grouping), projected to the grouping fields. One equality query per
 * status on the (org_id, status) index: FerretDB pushes equality down to
 * PostgreSQL but filters `status: {$in: …}` itself, which measured twice as
 * slow on 10,000 documents.
 */
export async function findGroupableInboxDocuments(db: Db, orgId: string): Promise<GroupableInboxDocument[]> {
  const inbox = collections(db).inboxDocuments;
  const perStatus = await Promise.all((['open', 'booked'] as const).map((status) =>
    inbox.find({ org_id: orgId, status }, { projection: GROUPING_PROJECTION }).toArray()));
  return perStatus.flat().map((doc) => {
    const record = fromStored(doc as Stored<InboxDocument>);
    return { ...record, file: record.file ?? { sha256: '', name: '', mime: '', size: 0 }, extracted: record.extracted ?? {} };
  });
}

/** The organisation's documents with these ids, whole and with their versions (a duplicate resolution's members). */
export async function findInboxDocumentsByIds(db: Db, orgId: string, ids: readonly string[]): Promise<Array<InboxDocument & { version: number; archived_reason?: string | null }>> {
  const docs = await findWhereIn(db, collections(db).inboxDocuments, orgId, '_id', ids);
  return docs.map((doc) => fromStored(doc as Stored<InboxDocument & { version: number; archived_reason?: string | null }>));
}
