// The plan locks a revert takes (docs/design/staged-lifecycle.md "Reverts"):
// `revert:<id>`, the reverted kind's own subject key, and every transaction,
// entry and inbox document it writes or whose links it writes, as the reverted
// kind locks them (a journal entry locks the document it attaches, so its
// revert, which puts that document back to open, locks it too).
import { expect } from 'chai';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import { inboxResolveRevertRules } from '../../shared/kinds/inbox-duplicates-resolve/revert.js';
import { journalEntryRevertRules, revertReversingEntryId } from '../../shared/kinds/journal-entry/revert.js';
import {
  decideRevert,
  recordKey,
  type KindRevertRules,
  type RevertSubject,
  type StoredRecord,
} from '../../shared/kinds/revert/plan.js';
import type { StagedKind } from '../../shared/domain/staged-kind.js';

/** The records as the apply left them: each insert's doc, each update's set over its before, at version 2 (1 for an insert). */
function asApplied(writes: readonly JournalWrite[]): Map<string, StoredRecord | null> {
  return new Map(
    writes.map((w): [string, StoredRecord | null] => [
      recordKey(w.collection, w.id),
      w.action === 'insert'
        ? { ...w.doc, version: 1 }
        : w.action === 'update'
          ? { ...w.before, ...w.set, version: w.version + 1 }
          : null,
    ]),
  );
}

function locksOf(kind: StagedKind, plan: unknown, writes: JournalWrite[], rules: KindRevertRules, extra: unknown) {
  const subject: RevertSubject = {
    id: 'stg_1',
    kind,
    status: 'applied',
    plan,
    preconditions: [],
    applied_at: '2026-03-05T00:00:00.000Z',
    writes,
  };
  const decision = decideRevert(
    subject,
    { records: asApplied(writes), extra },
    {
      scopes: [],
      required_scope: null,
      reverts: [],
      reverted_by: null,
      rules,
      lock_date: null,
      pending: [],
      reversal_date: '2026-03-31',
    },
    'stg_1',
  );
  expect(decision.outcome, JSON.stringify(decision)).to.equal('staged');
  return decision.outcome === 'staged' ? decision.locks : null;
}

describe('the plan locks of a revert', () => {
  it("a journal entry's: its key, the entry and its reversing entry, the transaction it booked and the document it attached", () => {
    const writes: JournalWrite[] = [
      {
        action: 'insert',
        collection: 'ledger_entries',
        id: 'le_fee',
        doc: {
          entry_date: '2026-03-02',
          description: 'Bank fee',
          reference: 'FEE-1',
          counterparty_id: 'cp_bank',
          currency: 'EUR',
          lines: [
            { account: '6855', debit_minor: 350, credit_minor: 0 },
            { account: '1600', debit_minor: 0, credit_minor: 350 },
          ],
          status: 'posted',
        },
      },
      {
        action: 'insert',
        collection: 'bank_links',
        id: 'lnk_fee',
        doc: { bank_transaction_id: 'bt_fee', ledger_entry_id: 'le_fee', amount_minor: 350 },
      },
      {
        action: 'update',
        collection: 'inbox_documents',
        id: 'doc_receipt',
        version: 1,
        set: { status: 'booked', booked_entry_id: 'le_fee' },
        before: { status: 'open', booked_entry_id: null },
      },
    ];
    const locks = locksOf('journal_entry', { ledger_entry_id: 'le_fee' }, writes, journalEntryRevertRules, {
      entry_link_ids: ['lnk_fee'],
      versions: {},
      reversing_reserved_version: 0,
    });
    expect(locks).to.deep.equal({
      subject_key: 'revert:stg_1',
      other_subject_keys: ['journal_entry:le_fee'],
      entry_ids: ['le_fee', revertReversingEntryId('stg_1')].sort(),
      transaction_ids: ['bt_fee'],
      document_ids: ['doc_receipt'],
    });
  });

  it("a duplicate resolution's: its group's key and the documents it archived, none else", () => {
    const archived = (id: string): JournalWrite => ({
      action: 'update',
      collection: 'inbox_documents',
      id,
      version: 1,
      set: { status: 'archived', archived_reason: 'duplicate' },
      before: { status: 'open', archived_reason: null },
    });
    const locks = locksOf(
      'inbox_duplicates_resolve',
      { group_id: 'grp_1' },
      [archived('doc_c'), archived('doc_b')],
      inboxResolveRevertRules,
      null,
    );
    expect(locks).to.deep.equal({
      subject_key: 'revert:stg_1',
      other_subject_keys: ['inbox_group:grp_1'],
      entry_ids: [],
      transaction_ids: [],
      document_ids: ['doc_b', 'doc_c'],
    });
  });
});
