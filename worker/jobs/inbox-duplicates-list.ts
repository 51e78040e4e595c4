// A page of the inbox duplicate overview (docs/reference/http-api.md §10). Read only
// from the inbox's point of view: the page comes from the overview
// materialized for the current inbox version, which the first reader of a new
// version computes once for everyone (docs/design/duplicate-overview.md).
import type { Db } from 'mongodb';
import type { GroupPage } from '../../shared/domain/duplicate-groups.js';
import type { InboxDuplicatesListInput } from '../../shared/queue/read-jobs.js';
import { readDuplicatePage } from '../../shared/storage/duplicate-overview.js';

export async function listInboxDuplicates(db: Db, orgId: string, input: InboxDuplicatesListInput, deadline?: Date): Promise<GroupPage> {
  const page = await readDuplicatePage(db, orgId, { limit: input.limit, min_confidence: input.min_confidence, after: input.after }, deadline);
  return { groups: page.groups, next_after: page.next_after };
}
