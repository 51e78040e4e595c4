// Load → group → page for the inbox duplicate overview (docs/http-api.md §10). Read
// only: the organisation's open and booked documents, projected to the
// grouping fields, grouped by the pure domain, one page cut out.
import type { Db } from 'mongodb';
import type { InboxDocument } from '../../shared/domain/books.js';
import { findDuplicateGroups, pageGroups, type GroupPage } from '../../shared/domain/duplicate-groups.js';
import type { InboxDuplicatesListInput } from '../../shared/queue/read-jobs.js';
import { findGroupableInboxDocuments } from '../../shared/storage/inbox-read.js';

export async function listInboxDuplicates(db: Db, orgId: string, input: InboxDuplicatesListInput): Promise<GroupPage> {
  const documents = await findGroupableInboxDocuments(db, orgId);
  // Grouping reads only the projected fields (id, received_at, status, file.sha256, extracted).
  const groups = findDuplicateGroups(documents as InboxDocument[]);
  return pageGroups(groups, { limit: input.limit, min_confidence: input.min_confidence, after: input.after });
}
