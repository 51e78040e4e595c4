// What applying a duplicate resolution writes (docs/design/staged-lifecycle.md
// "Apply"). Pure.
import type { VersionedInboxDocument } from '../../domain/books.js';
import {
  failed,
  withoutLinks,
  type ApplyBooks,
  type JournalContext,
  type JournalWrite,
  type KindJournal,
} from '../../domain/apply-journal.js';
import { duplicateGroupId } from '../../domain/duplicate-groups.js';
import { ok, type Result } from '../../domain/result.js';
import { duplicateOfReason, type InboxResolvePlan } from './plan.js';

export const inboxDuplicatesResolveJournal: KindJournal = {
  plan: (plan, books, ctx) => withoutLinks(inboxResolveJournal(plan as InboxResolvePlan, books, ctx)),
};

// Duplicate resolution (docs/design/duplicate-overview.md "Resolving a
// group"): archive_duplicates archives every member but the kept one, with
// the reason; not_duplicates records the dismissal of exactly that set of
// documents. Documents are never deleted.

/** The `_id` of the dismissal of a set of documents: one per org and set (the group id is the hash of the sorted ids). */
export function dismissalId(orgId: string, documentIds: readonly string[]): string {
  return `${orgId}:${duplicateGroupId(documentIds)}`;
}

/**
 * What apply reads for a resolution beyond its preconditions (worker/kinds/inbox-duplicates-resolve/apply.ts): the
 * highest version ever reserved on its dismissal's id, which a revert removed (0: none).
 */
export interface InboxResolveApplyBooks {
  dismissal_reserved_version: number;
}

function inboxResolveJournal(plan: InboxResolvePlan, books: ApplyBooks, ctx: JournalContext): Result<JournalWrite[]> {
  const byId = new Map((books.documents ?? []).map((d) => [d.id, d]));
  for (const id of plan.member_ids) {
    const doc = byId.get(id);
    if (!doc) return failed('inbox_document_missing', { id });
    if (doc.status === 'archived') return failed('inbox_document_archived', { id });
  }
  if (plan.resolution === 'not_duplicates') {
    return ok([
      {
        action: 'insert',
        collection: 'duplicate_dismissals',
        id: dismissalId(ctx.org_id, plan.member_ids),
        doc: {
          document_ids: [...plan.member_ids],
          group_id: plan.group_id,
          staged_operation_id: ctx.staged_operation_id,
          note: plan.note,
          created_at: ctx.now,
          created_by: ctx.actor,
          // Versions never go back: a dismissal made again after a revert removed it returns above the version it had.
          version: ((books.kind as InboxResolveApplyBooks | undefined)?.dismissal_reserved_version ?? 0) + 1,
        },
      },
    ]);
  }
  const reason = duplicateOfReason(plan.keep_document_id as string);
  return ok(
    plan.archive_document_ids.map((id): JournalWrite => {
      const doc = byId.get(id) as VersionedInboxDocument;
      return {
        action: 'update',
        collection: 'inbox_documents',
        id,
        version: doc.version,
        set: { status: 'archived', archived_reason: reason },
        before: { status: doc.status, archived_reason: doc.archived_reason ?? null },
      };
    }),
  );
}
