// Resolving a duplicate group of the receipts inbox (docs/reference/http-api.md
// §10.1, docs/design/duplicate-overview.md "Resolving a
// group"): the checks and the plan a reviewer approves. Pure: the worker
// groups the inbox as it is now and loads the group's documents, this decides.
import type { Precondition, VersionedInboxDocument } from '../../domain/books.js';
import { compareIds } from '../../domain/books.js';
import { refused, type Decision, type StagedDecision } from '../../domain/decision.js';
import type { DuplicateGroup } from '../../domain/duplicate-groups.js';
import { planHash } from '../../domain/plan-hash.js';
import { decideWithPending, type PendingHolder } from '../../domain/pending-gate.js';

export type InboxResolution = 'archive_duplicates' | 'not_duplicates';

export type InboxResolveRequest =
  | { group_id: string; resolution: 'archive_duplicates'; keep_document_id: string; note: string | null }
  | { group_id: string; resolution: 'not_duplicates'; note: string | null };

export interface InboxResolveBooks {
  /** The group with the requested id among the org's current groups, or null. */
  group: DuplicateGroup | null;
  /** Whether an overview the org still has stored listed a group with that id (its members changed since). */
  seen_before: boolean;
  /** The group's documents as stored now, with their versions. */
  documents: VersionedInboxDocument[];
  /** Pending operations holding the group. */
  pending: PendingHolder[];
}

export interface InboxResolvePlan {
  group_id: string;
  /** Sorted by id. */
  member_ids: string[];
  resolution: InboxResolution;
  /** The document kept (archive_duplicates); null for not_duplicates. */
  keep_document_id: string | null;
  /** Sorted by id; [] for not_duplicates. */
  archive_document_ids: string[];
  note: string | null;
}

export type InboxResolveDecision = Decision<InboxResolvePlan>;

/** The reason an archived duplicate carries. */
export const duplicateOfReason = (keptId: string): string => `duplicate_of:${keptId}`;

/** The plan lock of a group: one pending resolution per group. */
export function inboxGroupSubjectKey(groupId: string): string {
  return `inbox_group:${groupId}`;
}

/**
 * Decide a resolution, first failing check answered: an unknown group is
 * `not_found` (`stale_group` when a stored overview listed it: its members
 * changed since the caller read it), a kept document outside the group
 * `keep_document_not_member`, then the pending gate.
 */
export function decideInboxResolve(books: InboxResolveBooks, request: InboxResolveRequest): InboxResolveDecision {
  const { group } = books;
  if (!group || group.group_id !== request.group_id) {
    return books.seen_before
      ? refused('stale_group', { group_id: request.group_id })
      : refused('not_found', { resource: 'Duplicate group', id: request.group_id });
  }
  const memberIds = group.documents.map((d) => d.document_id).sort(compareIds);
  if (request.resolution === 'archive_duplicates' && !memberIds.includes(request.keep_document_id)) {
    return refused('keep_document_not_member', {
      group_id: group.group_id,
      keep_document_id: request.keep_document_id,
      member_ids: memberIds,
    });
  }
  const versions = new Map(books.documents.map((d) => [d.id, d.version]));
  // A member gone or archived between the grouping and the version read: the group is no longer what the caller saw.
  const live = new Map(books.documents.map((d) => [d.id, d.status !== 'archived']));
  if (memberIds.some((id) => !versions.has(id) || !live.get(id)))
    return refused('stale_group', { group_id: group.group_id });

  const keep = request.resolution === 'archive_duplicates' ? request.keep_document_id : null;
  const plan: InboxResolvePlan = {
    group_id: group.group_id,
    member_ids: memberIds,
    resolution: request.resolution,
    keep_document_id: keep,
    archive_document_ids: keep === null ? [] : memberIds.filter((id) => id !== keep),
    note: request.note,
  };
  const preconditions: Precondition[] = memberIds.map((id) => ({
    collection: 'inbox_documents',
    id,
    version: versions.get(id) as number,
  }));
  const staged: StagedDecision<InboxResolvePlan> = {
    outcome: 'staged',
    plan,
    plan_hash: planHash(plan),
    locks: { subject_key: inboxGroupSubjectKey(group.group_id), entry_ids: [], transaction_ids: [] },
    preconditions,
    warnings: [],
  };
  return decideWithPending(books.pending, staged);
}
