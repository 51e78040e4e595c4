// Reverting a journal entry (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads the entry's links now, the version now of the transaction it
// booked, and the versions ever reserved on the reversing entry's id (a revert
// whose apply failed and was undone left one there).
import {
  journalEntryRevertRules,
  revertReversingEntryId,
  type JournalEntryRevertExtra,
} from '../../../shared/kinds/journal-entry/revert.js';
import type { JournalEntryPlan } from '../../../shared/kinds/journal-entry/plan.js';
import { findLinks } from '../../../shared/storage/books-read.js';
import { currentRecords } from '../../../shared/storage/reverts.js';
import { highestReservedVersions } from '../../../shared/storage/version-reservations.js';
import { revertHook } from '../revert/hook.js';

export const journalEntryRevert = revertHook<JournalEntryRevertExtra>({
  rules: journalEntryRevertRules,
  load: async (ctx, subject) => {
    const { db } = ctx;
    const orgId = ctx.data.org_id;
    const entryId = (subject.plan as JournalEntryPlan).ledger_entry_id;
    const reversingId = revertReversingEntryId(subject.id);
    const refs = subject.preconditions
      .filter((p) => p.collection === 'bank_transactions')
      .map((p) => ({ collection: p.collection, id: p.id }));
    const [links, now, reserved] = await Promise.all([
      findLinks(db, orgId, 'ledger_entry_id', [entryId]),
      currentRecords(db, orgId, refs),
      highestReservedVersions(db, orgId, 'ledger_entries', [reversingId]),
    ]);
    return {
      entry_link_ids: links.map((l) => l.id),
      versions: Object.fromEntries([...now].map(([key, record]) => [key, record?.version ?? null])),
      reversing_reserved_version: reserved.get(reversingId) ?? 0,
    };
  },
});
