// Resolving an inbox duplicate group (docs/reference/http-api.md §10.1):
// find the group by its id among the current groups (the
// ready overview of the current inbox version, else the inbox grouped here,
// dismissals honoured), load its documents with their versions; decide by the
// pure rule. The id is only looked for in stored
// overviews when it is no current group (stale_group or not_found).
import { findDuplicateGroups, type DuplicateGroup } from '../../../shared/domain/duplicate-groups.js';
import type { InboxDocument } from '../../../shared/domain/books.js';
import {
  decideInboxResolve,
  inboxGroupSubjectKey,
  type InboxResolveBooks,
  type InboxResolvePlan,
  type InboxResolveRequest,
} from '../../../shared/kinds/inbox-duplicates-resolve/plan.js';
import { documentsContext } from '../../../shared/domain/plan-context.js';
import { findDismissals } from '../../../shared/storage/duplicate-dismissals.js';
import { findGroupInCurrentOverview, storedOverviewListsGroup } from '../../../shared/storage/duplicate-overview.js';
import { findGroupableInboxDocuments, findInboxDocumentsByIds } from '../../../shared/storage/inbox-read.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'inbox_duplicates_resolve.stage';

async function load(ctx: JobContext<Op>): Promise<InboxResolveBooks> {
  const { db, data } = ctx;
  const orgId = data.org_id;
  const groupId = data.input.group_id;
  const group = await currentGroup(ctx);
  if (!group)
    return { group: null, seen_before: await storedOverviewListsGroup(db, orgId, groupId), documents: [], pending: [] };
  const members = await findInboxDocumentsByIds(
    db,
    orgId,
    group.documents.map((d) => d.document_id),
  );
  return { group, seen_before: true, documents: members, pending: [] };
}

/**
 * The group with the requested id among the current groups: from the ready
 * overview of the current inbox version (which is findDuplicateGroups of that
 * inbox, dismissals honoured: docs/design/duplicate-overview.md), else by
 * grouping the inbox here.
 */
async function currentGroup(ctx: JobContext<Op>): Promise<DuplicateGroup | null> {
  const { db, data } = ctx;
  const stored = await findGroupInCurrentOverview(db, data.org_id, data.input.group_id);
  if (stored !== 'not_ready') return stored;
  const [documents, dismissals] = await Promise.all([
    findGroupableInboxDocuments(db, data.org_id),
    findDismissals(db, data.org_id),
  ]);
  // Grouping reads only the projected fields (id, received_at, status, file.sha256, extracted).
  return (
    findDuplicateGroups(documents as InboxDocument[], dismissals).find((g) => g.group_id === data.input.group_id) ??
    null
  );
}

function requestOf(input: JobContext<Op>['data']['input']): InboxResolveRequest {
  const note = input.note ?? null;
  return input.resolution === 'archive_duplicates'
    ? { group_id: input.group_id, resolution: 'archive_duplicates', keep_document_id: input.keep_document_id, note }
    : { group_id: input.group_id, resolution: 'not_duplicates', note };
}

export const stageInboxDuplicatesResolve = stagingJob<Op, InboxResolveBooks, InboxResolvePlan>({
  kind: 'inbox_duplicates_resolve',
  load,
  decide: (books, _org, { data }) => decideInboxResolve(books, requestOf(data.input)),
  // Every member as the reviewer judges it: received, file, extracted fields (docs/design/staged-lifecycle.md "Context").
  context: (books, plan) => documentsContext(books.documents, plan.member_ids),
  // The one key a staged resolution locks: its group.
  pendingGate: {
    keys: (_books, { data }) =>
      lockKeys(data.org_id, {
        subject_key: inboxGroupSubjectKey(data.input.group_id),
        entry_ids: [],
        transaction_ids: [],
      }),
    withHolders: (books, holders) => ({ ...books, pending: holders }),
  },
});
