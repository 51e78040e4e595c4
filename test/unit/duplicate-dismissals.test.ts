// The dismissal edge rule of the duplicate grouping (docs/design/duplicate-overview.md
// "Dismissals"): documents resolved as not duplicates of each other never pair again.
import { expect } from 'chai';
import type { InboxDocument } from '../../shared/domain/books.js';
import { duplicateGroupId, findDuplicateGroups } from '../../shared/domain/duplicate-groups.js';

const at = (day: number): string => `2026-03-${String(day).padStart(2, '0')}T09:00:00.000Z`;

function doc(id: string, day: number, extracted: InboxDocument['extracted'], sha256 = `sha-of-${id}`): InboxDocument {
  return { id, received_at: at(day), source: 'email', status: 'open', file: { sha256, name: `${id}.pdf`, size: 1, mime: 'application/pdf' }, extracted };
}

const invoice = { vendor_name: 'Acme GmbH', invoice_number: 'RE-1', invoice_date: '2026-02-20', total_minor: 11900, currency: 'EUR' };
/** Same amount, vendor and date as `invoice`, another invoice number: only the date-window rule ties it. */
const sameAmount = (n: string, date = '2026-02-20') => ({ ...invoice, invoice_number: n, invoice_date: date });

describe('duplicate grouping with dismissals', () => {
  it('never groups a dismissed pair, whichever rules tie them', () => {
    const docs = [doc('doc_a', 1, invoice, 'f'), doc('doc_b', 2, invoice, 'f')];
    expect(findDuplicateGroups(docs)).to.have.length(1);
    expect(findDuplicateGroups(docs, [['doc_a', 'doc_b']])).to.deep.equal([]);
  });

  it('groups a new document that pairs with a dismissed pair again, with the dismissal shown', () => {
    const docs = [doc('doc_a', 1, invoice), doc('doc_b', 2, invoice), doc('doc_c', 3, invoice)];
    const groups = findDuplicateGroups(docs, [['doc_b', 'doc_a']]);
    expect(groups).to.deep.equal([{
      group_id: duplicateGroupId(['doc_a', 'doc_b', 'doc_c']),
      confidence: 0.95,
      canonical_document_id: 'doc_a',
      documents: [
        { document_id: 'doc_a', role: 'canonical', status: 'open', received_at: at(1), reasons: [
          { rule: 'same_invoice_number', with_document_id: 'doc_c', confidence: 0.95 },
          { rule: 'same_amount_date_vendor', with_document_id: 'doc_c', confidence: 0.8 },
        ] },
        { document_id: 'doc_b', role: 'duplicate', status: 'open', received_at: at(2), reasons: [
          { rule: 'same_invoice_number', with_document_id: 'doc_c', confidence: 0.95 },
          { rule: 'same_amount_date_vendor', with_document_id: 'doc_c', confidence: 0.8 },
        ] },
        { document_id: 'doc_c', role: 'duplicate', status: 'open', received_at: at(3), reasons: [
          { rule: 'same_invoice_number', with_document_id: 'doc_a', confidence: 0.95 },
          { rule: 'same_amount_date_vendor', with_document_id: 'doc_a', confidence: 0.8 },
        ] },
      ],
      dismissed_with: [['doc_a', 'doc_b']],
    }]);
  });

  it('parts a date run only where a dismissal names both documents', () => {
    // a–b–c within three days of each other; {a, b} dismissed: a and b still meet through c.
    const docs = [doc('doc_a', 1, sameAmount('1', '2026-02-20')), doc('doc_b', 2, sameAmount('2', '2026-02-21')), doc('doc_c', 3, sameAmount('3', '2026-02-22'))];
    const [group] = findDuplicateGroups(docs, [['doc_a', 'doc_b']]);
    expect(group?.documents.map((d) => [d.document_id, d.reasons.map((r) => r.with_document_id)])).to.deep.equal([
      ['doc_a', ['doc_c']], ['doc_b', ['doc_c']], ['doc_c', ['doc_a']],
    ]);
    // Only a and b: nothing left to group.
    expect(findDuplicateGroups(docs.slice(0, 2), [['doc_a', 'doc_b']])).to.deep.equal([]);
  });

  it('leaves groups no dismissal touches exactly as without dismissals', () => {
    const docs = [doc('doc_a', 1, invoice), doc('doc_b', 2, invoice), doc('doc_x', 3, sameAmount('9', '2026-01-01')), doc('doc_y', 4, sameAmount('8', '2026-01-02'))];
    expect(findDuplicateGroups(docs, [['doc_q', 'doc_r']])).to.deep.equal(findDuplicateGroups(docs));
    const withOne = findDuplicateGroups(docs, [['doc_x', 'doc_y']]);
    expect(withOne.map((g) => g.group_id)).to.deep.equal([duplicateGroupId(['doc_a', 'doc_b'])]);
    expect(withOne[0]).to.not.have.property('dismissed_with');
  });

  it('splits a bucket into the documents a dismissal does not part', () => {
    // Same file for all four; {a, b} and {c, d} dismissed: a–c, a–d, b–c, b–d remain, one group showing both dismissals.
    const docs = ['doc_a', 'doc_b', 'doc_c', 'doc_d'].map((id, i) => doc(id, i + 1, {}, 'same'));
    const [group, ...rest] = findDuplicateGroups(docs, [['doc_a', 'doc_b'], ['doc_c', 'doc_d']]);
    expect(rest).to.deep.equal([]);
    expect(group?.dismissed_with).to.deep.equal([['doc_a', 'doc_b'], ['doc_c', 'doc_d']]);
    expect(group?.documents.map((d) => d.reasons[0]?.with_document_id)).to.deep.equal(['doc_c', 'doc_c', 'doc_a', 'doc_a']);
  });
});
