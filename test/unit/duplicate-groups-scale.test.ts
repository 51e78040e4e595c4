import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { InboxDocument, InboxDocumentStatus } from '../../shared/domain/books.js';
import { findDuplicateGroups, pageGroups, type DuplicateGroup } from '../../shared/domain/duplicate-groups.js';
import type { DuplicateRule } from '../../shared/domain/duplicate-rules.js';
import { normaliseInvoiceNumber } from '../../shared/domain/invoice-number.js';
import { vendorKey } from '../../shared/domain/vendor-key.js';
import { mulberry32 as prng } from '../helpers/seeded-random.js';

// 100,000 documents built deterministically: planted duplicate families (each
// with a vendor, file and invoice numbers of its own, so families never meet),
// one 20,000-document date chain, one 5,000-document copy of the same file,
// and unrelated singletons. Asserts the exact planted groups and every
// invariant of the result; no timing assertion (the 2-minute timeout is the
// guard against an all-pairs comparison).

const TOTAL_DOCUMENTS = 100_000;
const BIG_CHAIN = 20_000;
const BIG_FILE = 5_000;

interface Inbox {
  documents: InboxDocument[];
  /** Document id → planted family (absent for singletons). */
  familyOf: Map<string, string>;
  /** Family → the confidence its group must have, for families that must be reported. */
  reported: Map<string, number>;
}

function buildInbox(seed: number): Inbox {
  const random = prng(seed);
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const documents: InboxDocument[] = [];
  const familyOf = new Map<string, string>();
  const reported = new Map<string, number>();
  const baseReceived = Date.UTC(2025, 0, 1);
  const day = (offset: number): string =>
    new Date(Date.UTC(1990, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

  let next = 0;
  const add = (
    family: string | null,
    status: InboxDocumentStatus,
    sha: string,
    extracted: InboxDocument['extracted'],
  ): void => {
    const id = `doc_${(next++).toString(36).padStart(5, '0')}_${int(0, 9999)}`;
    documents.push({
      id,
      received_at: new Date(baseReceived + int(0, 365 * 86_400) * 1000).toISOString(),
      source: 'upload',
      status,
      file: { sha256: sha, name: `${id}.pdf`, size: int(1, 1e6), mime: 'application/pdf' },
      extracted,
    });
    if (family !== null) familyOf.set(id, family);
  };
  const openOrBooked = (): InboxDocumentStatus => (random() < 0.7 ? 'open' : 'booked');
  const mixed = (n: number): InboxDocumentStatus[] => {
    const statuses = Array.from({ length: n }, openOrBooked);
    statuses[int(0, n - 1)] = 'open';
    return statuses;
  };

  // The big families first.
  let chainDay = 0;
  for (const status of mixed(BIG_CHAIN)) {
    add('big_chain', status, `chain-${next}`, {
      vendor_name: 'Chain Industries GmbH',
      invoice_date: day(chainDay),
      total_minor: 9_999,
      currency: 'EUR',
    });
    chainDay += int(0, 3);
  }
  reported.set('big_chain', 0.8);
  for (const status of mixed(BIG_FILE))
    add('big_file', status, 'same-file-everywhere', { vendor_tax_id: `BIGFILE-${next}` });
  reported.set('big_file', 1);

  // Small planted families until about 60% of the inbox, the rest singletons.
  let f = 0;
  while (documents.length < TOTAL_DOCUMENTS * 0.6) {
    const kind = (['file', 'invoice', 'date', 'near_miss', 'all_booked', 'archived_bridge'] as const)[f % 6]!;
    const family = `${kind}_${f}`;
    const vendor = { vendor_tax_id: `VAT-${f}` };
    const size = int(2, 4);
    switch (kind) {
      case 'file':
        for (const status of mixed(size)) add(family, status, `file-${f}`, { ...vendor, invoice_number: `N-${next}` });
        reported.set(family, 1);
        break;
      case 'invoice':
        for (const status of mixed(size))
          add(family, status, `own-${next}`, { ...vendor, invoice_number: random() < 0.5 ? `RE-00${f}` : `re 00${f}` });
        reported.set(family, 0.95);
        break;
      case 'date': {
        let d = int(0, 5_000);
        for (const status of mixed(size)) {
          add(family, status, `own-${next}`, {
            ...vendor,
            invoice_number: `N-${next}`,
            invoice_date: day(d),
            total_minor: 100 * f,
            currency: 'EUR',
          });
          d += int(0, 3);
        }
        reported.set(family, 0.8);
        break;
      }
      case 'near_miss': {
        // Same vendor, currency and total, dates 4 days apart: no pair.
        const d = int(0, 5_000);
        add(family, 'open', `own-${next}`, { ...vendor, invoice_date: day(d), total_minor: 500, currency: 'EUR' });
        add(family, 'open', `own-${next}`, { ...vendor, invoice_date: day(d + 4), total_minor: 500, currency: 'EUR' });
        break;
      }
      case 'all_booked':
        for (let i = 0; i < size; i++) add(family, 'booked', `file-${f}`, {});
        break;
      case 'archived_bridge':
        // open ~ archived by file, archived ~ open by invoice number: no group.
        add(family, 'open', `file-${f}`, {});
        add(family, 'archived', `file-${f}`, { ...vendor, invoice_number: `B-${f}` });
        add(family, 'open', `own-${next}`, { ...vendor, invoice_number: `b ${f}` });
        break;
    }
    f++;
  }
  while (documents.length < TOTAL_DOCUMENTS) {
    const status = (['open', 'booked', 'archived'] as const)[int(0, 2)] as InboxDocumentStatus;
    add(null, status, `single-${next}`, {
      vendor_tax_id: `SOLO-${next}`,
      invoice_number: `S-${next}`,
      invoice_date: day(int(0, 5_000)),
      total_minor: 1_000,
      currency: 'EUR',
    });
  }

  // Shuffle (Fisher–Yates) so the input order says nothing.
  for (let i = documents.length - 1; i > 0; i--) {
    const j = int(0, i);
    [documents[i], documents[j]] = [documents[j] as InboxDocument, documents[i] as InboxDocument];
  }
  return { documents, familyOf, reported };
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const receivedMs = (d: { received_at: string }): number => Date.parse(d.received_at);
const dayNumber = (date: string | undefined): number => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

const memo = <T>(f: (d: InboxDocument) => T): ((d: InboxDocument) => T) => {
  const cache = new Map<InboxDocument, T>();
  return (d) => {
    if (!cache.has(d)) cache.set(d, f(d));
    return cache.get(d) as T;
  };
};
const vendorOf = memo((d) => vendorKey(d.extracted));
const invoiceOf = memo((d) => normaliseInvoiceNumber(d.extracted.invoice_number));

/** The pair rules of §5.4, checked directly on two documents. */
function pairsUnder(rule: DuplicateRule, a: InboxDocument, b: InboxDocument): boolean {
  switch (rule) {
    case 'same_file':
      return a.file.sha256 === b.file.sha256;
    case 'same_invoice_number':
      return (
        vendorOf(a) !== null && vendorOf(a) === vendorOf(b) && invoiceOf(a) !== null && invoiceOf(a) === invoiceOf(b)
      );
    case 'same_amount_date_vendor':
      return (
        vendorOf(a) !== null &&
        vendorOf(a) === vendorOf(b) &&
        a.extracted.currency === b.extracted.currency &&
        a.extracted.total_minor !== undefined &&
        a.extracted.total_minor === b.extracted.total_minor &&
        Math.abs(dayNumber(a.extracted.invoice_date) - dayNumber(b.extracted.invoice_date)) <= 3
      );
  }
}

const RULE_ORDER: DuplicateRule[] = ['same_file', 'same_invoice_number', 'same_amount_date_vendor'];

describe('findDuplicateGroups at scale (100,000 documents)', function () {
  this.timeout(120_000);

  let inbox: Inbox;
  let groups: DuplicateGroup[];
  let byId: Map<string, InboxDocument>;

  before(() => {
    inbox = buildInbox(20_260_301);
    byId = new Map(inbox.documents.map((d) => [d.id, d]));
    groups = findDuplicateGroups(inbox.documents);
  });

  it('builds the inbox it says it builds', () => {
    expect(inbox.documents).to.have.length(TOTAL_DOCUMENTS);
    expect(byId.size).to.equal(TOTAL_DOCUMENTS);
  });

  it('reports exactly the planted families that must be reported, each with its confidence', () => {
    const familyMembers = new Map<string, string[]>();
    for (const d of inbox.documents) {
      const family = inbox.familyOf.get(d.id);
      if (family === undefined || d.status === 'archived') continue;
      const members = familyMembers.get(family);
      if (members) members.push(d.id);
      else familyMembers.set(family, [d.id]);
    }
    const found = new Map<string, number>();
    for (const g of groups) {
      const families = new Set(g.documents.map((d) => inbox.familyOf.get(d.document_id) ?? '(single)'));
      expect([...families]).to.have.length(1);
      const family = [...families][0] as string;
      expect(found.has(family), `family ${family} split over two groups`).to.equal(false);
      found.set(family, g.confidence);
      // Every non-archived member of the family is in the group.
      const expectedMembers = familyMembers.get(family) ?? [];
      expect(g.documents.map((d) => d.document_id).sort(byCodeUnit)).to.deep.equal(
        [...expectedMembers].sort(byCodeUnit),
      );
    }
    const entries = (m: Map<string, number>): [string, number][] => [...m].sort(([a], [b]) => byCodeUnit(a, b));
    expect(entries(found)).to.deep.equal(entries(inbox.reported));
    expect(groups.find((g) => g.documents.length === BIG_CHAIN)).to.not.equal(undefined);
    expect(groups.find((g) => g.documents.length === BIG_FILE)).to.not.equal(undefined);
  });

  it('lists each document at most once, never archived, in groups of two or more with an open member', () => {
    const seen = new Set<string>();
    for (const g of groups) {
      expect(g.documents.length).to.be.at.least(2);
      expect(g.documents.some((d) => d.status === 'open')).to.equal(true);
      for (const d of g.documents) {
        expect(seen.has(d.document_id)).to.equal(false);
        seen.add(d.document_id);
        const source = byId.get(d.document_id) as InboxDocument;
        expect(source.status).to.not.equal('archived');
        expect(d.status).to.equal(source.status);
        expect(d.received_at).to.equal(source.received_at);
      }
    }
  });

  it('puts the canonical document first and the rest by received_at, id, with the specified group id', () => {
    for (const g of groups) {
      const docs = g.documents.map((d) => byId.get(d.document_id) as InboxDocument);
      const sorted = [...docs].sort((a, b) => receivedMs(a) - receivedMs(b) || byCodeUnit(a.id, b.id));
      const canonical = sorted.find((d) => d.status === 'booked') ?? sorted[0]!;
      const expectedOrder = [canonical, ...sorted.filter((d) => d !== canonical)].map((d) => d.id);
      expect(g.canonical_document_id).to.equal(canonical.id);
      expect(g.documents.map((d) => d.document_id)).to.deep.equal(expectedOrder);
      expect(g.documents.map((d) => d.role)).to.deep.equal(
        expectedOrder.map((_, i) => (i === 0 ? 'canonical' : 'duplicate')),
      );
      const joined = docs
        .map((d) => d.id)
        .sort(byCodeUnit)
        .join('\n');
      expect(g.group_id).to.equal(`grp_${createHash('sha256').update(joined).digest('hex').slice(0, 16)}`);
    }
  });

  it('gives every document true reasons, one per rule, strongest first, and the group its lowest confidence', () => {
    for (const g of groups) {
      const members = new Set(g.documents.map((d) => d.document_id));
      let lowest = 1;
      for (const d of g.documents) {
        expect(d.reasons.length).to.be.at.least(1);
        const rules = d.reasons.map((r) => r.rule);
        expect(rules).to.deep.equal(RULE_ORDER.filter((rule) => rules.includes(rule)));
        for (const r of d.reasons) {
          expect(members.has(r.with_document_id)).to.equal(true);
          expect(r.with_document_id).to.not.equal(d.document_id);
          expect(
            pairsUnder(r.rule, byId.get(d.document_id) as InboxDocument, byId.get(r.with_document_id) as InboxDocument),
          ).to.equal(true);
        }
        lowest = Math.min(lowest, d.reasons[0]?.confidence ?? 0);
      }
      expect(g.confidence).to.equal(lowest);
    }
  });

  it('names the first member in group order within 3 days in the 20,000-document chain (sampled)', () => {
    const chain = groups.find((g) => g.documents.length === BIG_CHAIN) as DuplicateGroup;
    const ordered = chain.documents.map((d) => byId.get(d.document_id) as InboxDocument);
    for (let k = 0; k < 300; k++) {
      const position = (k * 7_919) % ordered.length;
      const self = ordered[position] as InboxDocument;
      const first = ordered.find((o) => o !== self && pairsUnder('same_amount_date_vendor', self, o));
      expect(chain.documents[position]?.reasons).to.deep.equal([
        { rule: 'same_amount_date_vendor', with_document_id: first?.id, confidence: 0.8 },
      ]);
    }
  });

  it('orders groups by newest received_at descending, then group id, and pages through all of them', () => {
    const newest = (g: DuplicateGroup): number => Math.max(...g.documents.map(receivedMs));
    for (let i = 1; i < groups.length; i++) {
      const [a, b] = [groups[i - 1] as DuplicateGroup, groups[i] as DuplicateGroup];
      expect(newest(a) > newest(b) || (newest(a) === newest(b) && a.group_id < b.group_id)).to.equal(true);
    }
    const paged: DuplicateGroup[] = [];
    let page = pageGroups(groups, { limit: 200 });
    paged.push(...page.groups);
    for (let pages = 1; page.next_after; pages++) {
      expect(pages, 'more pages than needed: paging does not advance').to.be.at.most(Math.ceil(groups.length / 200));
      page = pageGroups(groups, { limit: 200, after: page.next_after });
      paged.push(...page.groups);
    }
    expect(paged.map((g) => g.group_id)).to.deep.equal(groups.map((g) => g.group_id));
  });
});
