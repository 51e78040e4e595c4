// The plan of a duplicate resolution (shared/kinds/inbox-duplicates-resolve/plan.ts), exactly.
import { expect } from 'chai';
import type { InboxDocument, VersionedInboxDocument } from '../../shared/domain/books.js';
import { findDuplicateGroups } from '../../shared/domain/duplicate-groups.js';
import { decideInboxResolve, type InboxResolveBooks } from '../../shared/kinds/inbox-duplicates-resolve/plan.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import { planJournal } from '../../shared/kinds/journals.js';
import { dismissalId } from '../../shared/kinds/inbox-duplicates-resolve/journal.js';

const extracted = {
  vendor_name: 'Acme GmbH',
  invoice_number: 'RE-1',
  invoice_date: '2026-02-20',
  total_minor: 11900,
  currency: 'EUR',
};
function doc(
  id: string,
  day: number,
  version: number,
  status: InboxDocument['status'] = 'open',
): VersionedInboxDocument {
  return {
    id,
    received_at: `2026-03-0${day}T09:00:00.000Z`,
    source: 'email',
    status,
    file: { sha256: `sha-${id}`, name: `${id}.pdf`, size: 1, mime: 'application/pdf' },
    extracted,
    version,
  };
}
const docs = [doc('doc_b', 2, 4), doc('doc_a', 1, 1), doc('doc_c', 3, 2)];
const group = findDuplicateGroups(docs)[0]!;
const books = (over: Partial<InboxResolveBooks> = {}): InboxResolveBooks => ({
  group,
  seen_before: true,
  documents: docs,
  pending: [],
  ...over,
});

describe('inbox duplicate resolution plan', () => {
  it("archives every member but the kept one, guarded by each member's version", () => {
    const d = decideInboxResolve(books(), {
      group_id: group.group_id,
      resolution: 'archive_duplicates',
      keep_document_id: 'doc_b',
      note: 'same scan',
    });
    const plan = {
      group_id: group.group_id,
      member_ids: ['doc_a', 'doc_b', 'doc_c'],
      resolution: 'archive_duplicates',
      keep_document_id: 'doc_b',
      archive_document_ids: ['doc_a', 'doc_c'],
      note: 'same scan',
    };
    expect(d).to.deep.equal({
      outcome: 'staged',
      plan,
      plan_hash: planHash(plan),
      locks: { subject_key: `inbox_group:${group.group_id}`, entry_ids: [], transaction_ids: [] },
      preconditions: [
        { collection: 'inbox_documents', id: 'doc_a', version: 1 },
        { collection: 'inbox_documents', id: 'doc_b', version: 4 },
        { collection: 'inbox_documents', id: 'doc_c', version: 2 },
      ],
      warnings: [],
    });
  });

  it('plans not_duplicates with nothing to archive and no kept document', () => {
    const d = decideInboxResolve(books(), { group_id: group.group_id, resolution: 'not_duplicates', note: null });
    expect(d.outcome === 'staged' && d.plan).to.deep.equal({
      group_id: group.group_id,
      member_ids: ['doc_a', 'doc_b', 'doc_c'],
      resolution: 'not_duplicates',
      keep_document_id: null,
      archive_document_ids: [],
      note: null,
    });
  });

  it('refuses an unknown group as not_found, and one a stored overview listed as stale_group', () => {
    const request = { group_id: 'grp_0000000000000000', resolution: 'not_duplicates', note: null } as const;
    expect(decideInboxResolve(books({ group: null, seen_before: false }), request)).to.deep.equal({
      outcome: 'refused',
      code: 'not_found',
      details: { resource: 'Duplicate group', id: 'grp_0000000000000000' },
    });
    expect(decideInboxResolve(books({ group: null, seen_before: true }), request)).to.deep.equal({
      outcome: 'refused',
      code: 'stale_group',
      details: { group_id: 'grp_0000000000000000' },
    });
  });

  it('refuses a kept document that is not a member', () => {
    expect(
      decideInboxResolve(books(), {
        group_id: group.group_id,
        resolution: 'archive_duplicates',
        keep_document_id: 'doc_z',
        note: null,
      }),
    ).to.deep.equal({
      outcome: 'refused',
      code: 'keep_document_not_member',
      details: { group_id: group.group_id, keep_document_id: 'doc_z', member_ids: ['doc_a', 'doc_b', 'doc_c'] },
    });
  });

  it('answers the pending resolution of the very same plan as existing, any other as pending_operation', () => {
    const request = { group_id: group.group_id, resolution: 'not_duplicates', note: null } as const;
    const staged = decideInboxResolve(books(), request);
    if (staged.outcome !== 'staged') throw new Error('not staged');
    const holder = { staged_operation_id: 'stg_1', subject_key: staged.locks.subject_key, plan_hash: staged.plan_hash };
    expect(decideInboxResolve(books({ pending: [holder] }), request)).to.deep.equal({
      outcome: 'existing',
      staged_operation_id: 'stg_1',
    });
    expect(decideInboxResolve(books({ pending: [{ ...holder, plan_hash: 'other' }] }), request)).to.deep.equal({
      outcome: 'refused',
      code: 'pending_operation',
      details: { staged_operation_ids: ['stg_1'] },
    });
  });

  it('journals archive_duplicates as version-guarded updates with the reason, and not_duplicates as one dismissal', () => {
    const ctx = { staged_operation_id: 'stg_1', org_id: 'org_1', actor: 'alice', now: '2026-03-10T00:00:00.000Z' };
    const archive = {
      group_id: group.group_id,
      member_ids: ['doc_a', 'doc_b', 'doc_c'],
      resolution: 'archive_duplicates',
      keep_document_id: 'doc_b',
      archive_document_ids: ['doc_a', 'doc_c'],
      note: null,
    };
    const empty = { entries: [], accounts: [], transactions: [], links: [], documents: docs };
    expect(planJournal('inbox_duplicates_resolve', archive, empty, ctx)).to.deep.equal({
      ok: true,
      value: [
        {
          action: 'update',
          collection: 'inbox_documents',
          id: 'doc_a',
          version: 1,
          set: { status: 'archived', archived_reason: 'duplicate_of:doc_b' },
          before: { status: 'open', archived_reason: null },
        },
        {
          action: 'update',
          collection: 'inbox_documents',
          id: 'doc_c',
          version: 2,
          set: { status: 'archived', archived_reason: 'duplicate_of:doc_b' },
          before: { status: 'open', archived_reason: null },
        },
      ],
    });
    const dismiss = { ...archive, resolution: 'not_duplicates', keep_document_id: null, archive_document_ids: [] };
    expect(planJournal('inbox_duplicates_resolve', dismiss, empty, ctx)).to.deep.equal({
      ok: true,
      value: [
        {
          action: 'insert',
          collection: 'duplicate_dismissals',
          id: dismissalId('org_1', ['doc_a', 'doc_b', 'doc_c']),
          doc: {
            document_ids: ['doc_a', 'doc_b', 'doc_c'],
            group_id: group.group_id,
            staged_operation_id: 'stg_1',
            note: null,
            created_at: ctx.now,
            created_by: 'alice',
            version: 1,
          },
        },
      ],
    });
    expect(dismissalId('org_1', ['doc_c', 'doc_a', 'doc_b'])).to.equal(`org_1:${group.group_id}`);
  });
});
