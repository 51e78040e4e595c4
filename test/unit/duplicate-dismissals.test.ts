// The dismissal edge rule of the duplicate grouping (docs/design/duplicate-overview.md
// "Dismissals"): documents resolved as not duplicates of each other never pair again.
import { expect } from 'chai';
import fc from 'fast-check';
import type { InboxDocument } from '../../shared/domain/books.js';
import { duplicateGroupId, findDuplicateGroups, type DuplicateGroup } from '../../shared/domain/duplicate-groups.js';

const at = (day: number): string => `2026-03-${String(day).padStart(2, '0')}T09:00:00.000Z`;

function doc(id: string, day: number, extracted: InboxDocument['extracted'], sha256 = `sha-of-${id}`): InboxDocument {
  return {
    id,
    received_at: at(day),
    source: 'email',
    status: 'open',
    file: { sha256, name: `${id}.pdf`, size: 1, mime: 'application/pdf' },
    extracted,
  };
}

const invoice = {
  vendor_name: 'Acme GmbH',
  invoice_number: 'RE-1',
  invoice_date: '2026-02-20',
  total_minor: 11900,
  currency: 'EUR',
};
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
    expect(groups).to.deep.equal([
      {
        group_id: duplicateGroupId(['doc_a', 'doc_b', 'doc_c']),
        confidence: 0.95,
        canonical_document_id: 'doc_a',
        documents: [
          {
            document_id: 'doc_a',
            role: 'canonical',
            status: 'open',
            received_at: at(1),
            reasons: [
              { rule: 'same_invoice_number', with_document_id: 'doc_c', confidence: 0.95 },
              { rule: 'same_amount_date_vendor', with_document_id: 'doc_c', confidence: 0.8 },
            ],
          },
          {
            document_id: 'doc_b',
            role: 'duplicate',
            status: 'open',
            received_at: at(2),
            reasons: [
              { rule: 'same_invoice_number', with_document_id: 'doc_c', confidence: 0.95 },
              { rule: 'same_amount_date_vendor', with_document_id: 'doc_c', confidence: 0.8 },
            ],
          },
          {
            document_id: 'doc_c',
            role: 'duplicate',
            status: 'open',
            received_at: at(3),
            reasons: [
              { rule: 'same_invoice_number', with_document_id: 'doc_a', confidence: 0.95 },
              { rule: 'same_amount_date_vendor', with_document_id: 'doc_a', confidence: 0.8 },
            ],
          },
        ],
        dismissed_with: [['doc_a', 'doc_b']],
      },
    ]);
  });

  it('parts a date run only where a dismissal names both documents', () => {
    // a–b–c within three days of each other; {a, b} dismissed: a and b still meet through c.
    const docs = [
      doc('doc_a', 1, sameAmount('1', '2026-02-20')),
      doc('doc_b', 2, sameAmount('2', '2026-02-21')),
      doc('doc_c', 3, sameAmount('3', '2026-02-22')),
    ];
    const [group] = findDuplicateGroups(docs, [['doc_a', 'doc_b']]);
    expect(group?.documents.map((d) => [d.document_id, d.reasons.map((r) => r.with_document_id)])).to.deep.equal([
      ['doc_a', ['doc_c']],
      ['doc_b', ['doc_c']],
      ['doc_c', ['doc_a']],
    ]);
    // Only a and b: nothing left to group.
    expect(findDuplicateGroups(docs.slice(0, 2), [['doc_a', 'doc_b']])).to.deep.equal([]);
  });

  it('leaves groups no dismissal touches exactly as without dismissals', () => {
    const docs = [
      doc('doc_a', 1, invoice),
      doc('doc_b', 2, invoice),
      doc('doc_x', 3, sameAmount('9', '2026-01-01')),
      doc('doc_y', 4, sameAmount('8', '2026-01-02')),
    ];
    expect(findDuplicateGroups(docs, [['doc_q', 'doc_r']])).to.deep.equal(findDuplicateGroups(docs));
    const withOne = findDuplicateGroups(docs, [['doc_x', 'doc_y']]);
    expect(withOne.map((g) => g.group_id)).to.deep.equal([duplicateGroupId(['doc_a', 'doc_b'])]);
    expect(withOne[0]).to.not.have.property('dismissed_with');
  });

  it('splits a bucket into the documents a dismissal does not part', () => {
    // Same file for all four; {a, b} and {c, d} dismissed: a–c, a–d, b–c, b–d remain, one group showing both dismissals.
    const docs = ['doc_a', 'doc_b', 'doc_c', 'doc_d'].map((id, i) => doc(id, i + 1, {}, 'same'));
    const [group, ...rest] = findDuplicateGroups(docs, [
      ['doc_a', 'doc_b'],
      ['doc_c', 'doc_d'],
    ]);
    expect(rest).to.deep.equal([]);
    expect(group?.dismissed_with).to.deep.equal([
      ['doc_a', 'doc_b'],
      ['doc_c', 'doc_d'],
    ]);
    expect(group?.documents.map((d) => d.reasons[0]?.with_document_id)).to.deep.equal([
      'doc_c',
      'doc_c',
      'doc_a',
      'doc_a',
    ]);
  });
});

// ---- property: against every pair compared on its own ------------------------------

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The rules tying two documents, by grouping just the two (both open). */
function pairRules(x: InboxDocument, y: InboxDocument): string[] {
  const [group] = findDuplicateGroups([
    { ...x, status: 'open' },
    { ...y, status: 'open' },
  ]);
  return group ? group.documents[0]!.reasons.map((r) => r.rule) : [];
}

/** Components of the pair graph without dismissed pairs; per member, per rule, the first partner in group order. */
function reference(
  inbox: InboxDocument[],
  dismissals: string[][],
): Array<{ members: string[]; partners: string[][]; dismissed_with?: string[][] }> {
  const docs = inbox.filter((d) => d.status !== 'archived');
  const parted = (a: string, b: string): boolean => dismissals.some((d) => d.includes(a) && d.includes(b));
  const rules = docs.map((a) => docs.map((b) => (a === b || parted(a.id, b.id) ? [] : pairRules(a, b))));
  const seen = new Set<number>();
  const out: Array<{ members: string[]; partners: string[][]; dismissed_with?: string[][] }> = [];
  for (let start = 0; start < docs.length; start++) {
    if (seen.has(start)) continue;
    const component = [start];
    seen.add(start);
    for (let k = 0; k < component.length; k++) {
      docs.forEach((_, j) => {
        if (!seen.has(j) && rules[component[k]!]![j]!.length > 0) {
          seen.add(j);
          component.push(j);
        }
      });
    }
    const members = component.map((i) => docs[i]!);
    if (members.length < 2 || !members.some((d) => d.status === 'open')) continue;
    const sorted = [...members].sort(
      (a, b) => Date.parse(a.received_at) - Date.parse(b.received_at) || byId(a.id, b.id),
    );
    const canonical = sorted.find((d) => d.status === 'booked') ?? sorted[0]!;
    const ordered = [canonical, ...sorted.filter((d) => d !== canonical)];
    const index = (d: InboxDocument) => docs.indexOf(d);
    const partners = ordered.map((d) =>
      ['same_file', 'same_invoice_number', 'same_amount_date_vendor'].flatMap((rule) => {
        const o = ordered.find((x) => x !== d && rules[index(d)]![index(x)]!.includes(rule));
        return o ? [o.id] : [];
      }),
    );
    const ids = new Set(members.map((d) => d.id));
    const shown = new Map<string, string[]>();
    for (const d of dismissals) {
      const inGroup = [...new Set(d)].filter((id) => ids.has(id)).sort(byId);
      if (inGroup.length > 1) shown.set(inGroup.join('\n'), inGroup);
    }
    const entry: { members: string[]; partners: string[][]; dismissed_with?: string[][] } = {
      members: ordered.map((d) => d.id),
      partners,
    };
    if (shown.size > 0) entry.dismissed_with = [...shown.values()].sort((a, b) => byId(a.join('\n'), b.join('\n')));
    out.push(entry);
  }
  return out.sort((a, b) => byId(a.members.join(), b.members.join()));
}

const view = (groups: DuplicateGroup[]) =>
  groups
    .map((g) => {
      const entry: { members: string[]; partners: string[][]; dismissed_with?: string[][] } = {
        members: g.documents.map((d) => d.document_id),
        partners: g.documents.map((d) => d.reasons.map((r) => r.with_document_id)),
      };
      if (g.dismissed_with) entry.dismissed_with = g.dismissed_with;
      return entry;
    })
    .sort((a, b) => byId(a.members.join(), b.members.join()));

const docArb = fc.record({
  status: fc.constantFrom<InboxDocument['status']>('open', 'open', 'booked', 'archived'),
  day: fc.integer({ min: 1, max: 9 }),
  file: fc.constantFrom('f1', 'f2', null, null, null),
  number: fc.constantFrom('RE-1', 'RE-2', undefined),
  date: fc.constantFrom('2026-02-20', '2026-02-22', '2026-02-24', '2026-02-28', undefined),
  total: fc.constantFrom(100, 200),
});
const inboxArb = fc.array(docArb, { minLength: 2, maxLength: 14 }).chain((specs) => {
  const inbox = specs.map((s, i): InboxDocument => ({
    ...doc(
      `doc_${String(i).padStart(2, '0')}`,
      s.day,
      { vendor_name: 'Acme', invoice_number: s.number, invoice_date: s.date, total_minor: s.total, currency: 'EUR' },
      s.file ?? `own-${i}`,
    ),
    status: s.status,
  }));
  const ids = inbox.map((d) => d.id);
  return fc.tuple(fc.constant(inbox), fc.array(fc.subarray(ids, { minLength: 2 }), { maxLength: 4 }));
});

describe('duplicate grouping with dismissals (property)', () => {
  it("equals the components of the pair graph without dismissed pairs, with each member's first partner per rule and the dismissals shown", () => {
    fc.assert(
      fc.property(inboxArb, ([inbox, dismissals]) => {
        expect(view(findDuplicateGroups(inbox, dismissals))).to.deep.equal(reference(inbox, dismissals));
      }),
      { numRuns: 300 },
    );
  });
});
