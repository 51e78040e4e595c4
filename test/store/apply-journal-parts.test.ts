// An apply journal's writes, stored in parts outside the operation
// (shared/storage/apply-journal-parts.ts, docs/design/staged-lifecycle.md "How
// an operation is stored"): a journal of several parts reads back write for
// write, in order, on the store through the driver and through the FerretDB
// adapter (which inserts the parts in SQL, side by side); a part missing is
// an error, never a shorter journal.
import { expect } from 'chai';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import {
  JOURNAL_PART_CHARS,
  MissingJournalPartError,
  readJournalParts,
  storeJournalParts,
} from '../../shared/storage/apply-journal-parts.js';
import { collections } from '../../shared/storage/collections.js';
import { handleForAdapter } from '../helpers/ferretdb-adapter.js';

/** A repair-shaped journal of `n` link inserts, some text two or four bytes a character as UTF-8. */
function journal(n: number): JournalWrite[] {
  return Array.from({ length: n }, (_, i) => ({
    action: 'insert' as const,
    collection: 'bank_links' as const,
    id: `lnk_${String(i).padStart(24, '0')}`,
    doc: {
      bank_transaction_id: `bt_${i}`,
      ledger_entry_id: `le_${i}`,
      amount_minor: 1_000 + i,
      created_at: '2026-12-01T10:00:00.000Z',
      created_by: i % 7 === 0 ? 'agent:Größe 😀 "€"' : 'bob',
      version: 1,
    },
  }));
}

for (const adapter of ['mongo', 'ferretdb'] as const) {
  describe(`apply journal parts (${adapter} adapter)`, function () {
    this.timeout(120_000);
    const store = handleForAdapter(adapter, 'journal_parts');

    it('a journal of several parts reads back write for write, each part at most JOURNAL_PART_CHARS of JSON', async function () {
      const db = await store(this);
      const orgId = `org_parts_${adapter}_${Date.now()}`;
      const writes = journal(12_000);
      const ref = await storeJournalParts(db, orgId, 'stg_parts', writes);
      expect(ref.journal_parts).to.be.at.least(3);
      const parts = await collections(db).applyJournalParts.find({ journal_id: ref.journal_id }).toArray();
      expect(parts.map((p) => p.seq).sort((a, b) => a - b)).to.deep.equal([...Array(ref.journal_parts).keys()]);
      for (const part of parts) expect(part.writes_json.length).to.be.at.most(JOURNAL_PART_CHARS);
      expect(await readJournalParts(db, orgId, 'stg_parts', ref)).to.deep.equal(writes);
    });

    it('a journal with a part missing is an error, not a shorter journal', async function () {
      const db = await store(this);
      const orgId = `org_gap_${adapter}_${Date.now()}`;
      const ref = await storeJournalParts(db, orgId, 'stg_gap', journal(12_000));
      await collections(db).applyJournalParts.deleteOne({ journal_id: ref.journal_id, seq: 1 });
      let error: unknown = null;
      await readJournalParts(db, orgId, 'stg_gap', ref).catch((err: unknown) => (error = err));
      expect(error).to.be.instanceOf(MissingJournalPartError);
    });
  });
}
