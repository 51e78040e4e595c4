// The list of staged operations (docs/design/staged-lifecycle.md "List"): one
// organisation, optional equality filters, newest first (created_at, then
// id, both descending), a page after a position. Visibility is the caller's
// filter (created_by) chosen by the route.
import type { Db, Filter } from 'mongodb';
import type { StagedStatus } from '../domain/staged-transitions.js';
import { collections } from './collections.js';
import type { StagedKind } from '../domain/staged-kind.js';
import type { StagedOperationDoc, StoredStagedOperation } from './collections.js';
import { decodeStoredOperations } from './staged-operations.js';

export interface StagedListPosition {
  created_at: string;
  id: string;
}

export interface StagedListQuery {
  org_id: string;
  status?: StagedStatus;
  kind?: StagedKind;
  created_by?: string;
  after: StagedListPosition | null;
  limit: number;
}

export async function listStagedOperations(
  db: Db,
  q: StagedListQuery,
): Promise<{ items: StagedOperationDoc[]; next: StagedListPosition | null }> {
  const filter: Filter<StoredStagedOperation> = { org_id: q.org_id };
  if (q.status) filter.status = q.status;
  if (q.kind) filter.kind = q.kind;
  if (q.created_by) filter.created_by = q.created_by;
  if (q.after)
    filter.$or = [
      { created_at: { $lt: q.after.created_at } },
      { created_at: q.after.created_at, _id: { $lt: q.after.id } },
    ];
  const docs = await collections(db)
    .stagedOperations.find(filter)
    .sort({ created_at: -1, _id: -1 })
    .limit(q.limit + 1)
    .toArray();
  const items = await decodeStoredOperations(db, docs.slice(0, q.limit));
  const last = items[items.length - 1];
  return { items, next: docs.length > q.limit && last ? { created_at: last.created_at, id: last._id } : null };
}
