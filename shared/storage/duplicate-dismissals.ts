// The inbox's dismissed duplicate sets (docs/design/duplicate-overview.md
// "Dismissals"): read whole per organisation when the inbox is grouped. They
// are written only by an apply journal (shared/kinds/inbox-duplicates-resolve/journal.ts).
import type { Db } from 'mongodb';
import { collections } from './collections.js';

/** Every set of document ids the organisation resolved as not duplicates, each sorted. */
export async function findDismissals(db: Db, orgId: string): Promise<string[][]> {
  const docs = await collections(db)
    .duplicateDismissals.find({ org_id: orgId }, { projection: { document_ids: 1 } })
    .toArray();
  return docs.map((d) => d.document_ids);
}
