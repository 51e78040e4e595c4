import { expect } from 'chai';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import type { InboxDocument, InboxDocumentStatus } from '../../shared/domain/books.js';
import {
  findDuplicateGroups,
  pageGroups,
  type DuplicateGroup,
  type DuplicateGroupDocument,
} from '../../shared/domain/duplicate-groups.js';
import type { DuplicateRule } from '../../shared/domain/duplicate-rules.js';
import { normaliseInvoiceNumber } from '../../shared/domain/invoice-number.js';
import { vendorKey } from '../../shared/domain/vendor-key.js';

// ---- generators: small value pools so that duplicates are frequent ---------------

const SHARED_FILES = ['f1', 'f2', 'f3'];
const NAMES = ['Acme GmbH', 'ACME gmbh.', 'Acme', 'Müller  GmbH.', 'MÜLLER GMBH', 'Beta Ltd', 'GmbH', ''];
const TAX_IDS = ['DE111', 'de-111', 'DE222', ' - '];
const INVOICE_NUMBERS = ['RE-0042', 're 0042', '42', '0042', '7', '007', '0', 'X1'];
const CURRENCIES = ['EUR', 'USD', 'eur', ''];
const TOTALS = [0, 100, 200];
/** 2026-02-22 … 2026-03-09 (across the end of February), plus a non-date. */
const DATES = [
  ...Array.from({ length: 16 }, (_, i) => new Date(Date.UTC(2026, 1, 22 + i)).toISOString().slice(0, 10)),
  '2026-02-30',
];

/** `arb` with the given chance (in percent), else undefined (the field is missing). */
const present = <T>(percent: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: arb, weight: percent }, { arbitrary: fc.constant(undefined), weight: 100 - percent });

const docSpecArb = fc.record({
  idTag: fc.integer({ min: 0, max: 99 }),
  status: fc.constantFrom<InboxDocumentStatus>('open', 'open', 'booked', 'archived'),
  /** Minutes after 2026-03-01T00:00Z; a small range so that ties happen. */
  receivedMinute: fc.integer({ min: 0, max: 30 }),
  sharedFile: present(20, fc.constantFrom(...SHARED_FILES)),
  vendor_name: present(85, fc.constantFrom(...NAMES)),
  vendor_tax_id: present(25, fc.constantFrom(...TAX_IDS)),
  invoice_number: present(60, fc.constantFrom(...INVOICE_NUMBERS)),
  invoice_date: present(85, fc.constantFrom(...DATES)),
  total_minor: present(85, fc.constantFrom(...TOTALS)),
  currency: present(85, fc.constantFrom(...CURRENCIES)),
});

type DocSpec = typeof docSpecArb extends fc.Arbitrary<infer T> ? T : never;

function toDocument(spec: DocSpec, index: number): InboxDocument {
  // Unique ids whose order is unrelated to the position in the input.
  const id = `doc_${String(spec.idTag).padStart(2, '0')}_${index}`;
  const extracted: InboxDocument['extracted'] = {};
  if (spec.vendor_name !== undefined) extracted.vendor_name = spec.vendor_name;
  if (spec.vendor_tax_id !== undefined) extracted.vendor_tax_id = spec.vendor_tax_id;
  if (spec.invoice_number !== undefined) extracted.invoice_number = spec.invoice_number;
  if (spec.invoice_date !== undefined) extracted.invoice_date = spec.invoice_date;
  if (spec.total_minor !== undefined) extracted.total_minor = spec.total_minor;
  if (spec.currency !== undefined) extracted.currency = spec.currency;
  return {
    id,
    received_at: new Date(Date.UTC(2026, 2, 1, 0, spec.receivedMinute)).toISOString(),
    source: 'email',
    status: spec.status,
    file: { sha256: spec.sharedFile ?? `own-${id}`, name: `${id}.pdf`, size: 1, mime: 'application/pdf' },
    extracted,
  };
}

const inboxArb = (maxLength: number): fc.Arbitrary<InboxDocument[]> =>
  fc.array(docSpecArb, { maxLength, size: 'max' }).map((specs) => specs.map(toDocument));

// ---- the brute-force reference: every pair compared, O(n²) ------------------------

const RULES: DuplicateRule[] = ['same_file', 'same_invoice_number', 'same_amount_date_vendor'];
const CONFIDENCE: Record<DuplicateRule, number> = {
  same_file: 1,
  same_invoice_number: 0.95,
  same_amount_date_vendor: 0.8,
};

function calendarDay(date: string | undefined): number | null {
  if (date === undefined) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) return null;
  return ms / 86_400_000;
}

const currencyOf = (d: InboxDocument): string | null => {
  const c = d.extracted.currency?.trim().toUpperCase();
  return c ? c : null;
};

/** The rules under which two documents pair, straight from §5.4. */
function rulesPairing(a: InboxDocument, b: InboxDocument): Set<DuplicateRule> {
  const rules = new Set<DuplicateRule>();
  if (a.file.sha256 !== '' && a.file.sha256 === b.file.sha256) rules.add('same_file');
  const vendor = vendorKey(a.extracted);
  if (vendor === null || vendor !== vendorKey(b.extracted)) return rules;
  const invoice = normaliseInvoiceNumber(a.extracted.invoice_number);
  if (invoice !== null && invoice === normaliseInvoiceNumber(b.extracted.invoice_number))
    rules.add('same_invoice_number');
  const [dayA, dayB] = [calendarDay(a.extracted.invoice_date), calendarDay(b.extracted.invoice_date)];
  const [totalA, totalB] = [a.extracted.total_minor, b.extracted.total_minor];
  if (
    currencyOf(a) !== null &&
    currencyOf(a) === currencyOf(b) &&
    totalA !== undefined &&
    totalA === totalB &&
    dayA !== null &&
    dayB !== null &&
    Math.abs(dayA - dayB) <= 3
  ) {
    rules.add('same_amount_date_vendor');
  }
  return rules;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byReceived = (a: InboxDocument, b: InboxDocument): number =>
  Date.parse(a.received_at) - Date.parse(b.received_at) || byCodeUnit(a.id, b.id);

function referenceGroups(inbox: InboxDocument[]): DuplicateGroup[] {
  const docs = inbox.filter((d) => d.status !== 'archived');
  const pairs = docs.map((a) => docs.map((b) => (a === b ? new Set<DuplicateRule>() : rulesPairing(a, b))));
  const seen = new Set<number>();
  const groups: DuplicateGroup[] = [];
  for (let start = 0; start < docs.length; start++) {
    if (seen.has(start)) continue;
    const component = [start];
    seen.add(start);
    for (let k = 0; k < component.length; k++) {
      const i = component[k] as number;
      docs.forEach((_, j) => {
        if (!seen.has(j) && (pairs[i]?.[j]?.size ?? 0) > 0) {
          seen.add(j);
          component.push(j);
        }
      });
    }
    const members = component.map((i) => docs[i] as InboxDocument);
    if (members.length < 2 || !members.some((d) => d.status === 'open')) continue;
    const sorted = [...members].sort(byReceived);
    const canonical = sorted.find((d) => d.status === 'booked') ?? sorted[0]!;
    const ordered = [canonical, ...sorted.filter((d) => d !== canonical)];
    const documents = ordered.map((d, position): DuplicateGroupDocument => {
      const reasons = RULES.flatMap((rule) => {
        const other = ordered.find((o) => o !== d && rulesPairing(d, o).has(rule));
        return other ? [{ rule, with_document_id: other.id, confidence: CONFIDENCE[rule] }] : [];
      });
      return {
        document_id: d.id,
        role: position === 0 ? 'canonical' : 'duplicate',
        status: d.status as 'open' | 'booked',
        received_at: d.received_at,
        reasons,
      };
    });
    const joined = members
      .map((d) => d.id)
      .sort(byCodeUnit)
      .join('\n');
    groups.push({
      group_id: `grp_${createHash('sha256').update(joined).digest('hex').slice(0, 16)}`,
      confidence: Math.min(...documents.map((d) => d.reasons[0]?.confidence ?? Number.NaN)),
      canonical_document_id: canonical.id,
      documents,
    });
  }
  const newest = (g: DuplicateGroup): number => Math.max(...g.documents.map((d) => Date.parse(d.received_at)));
  return groups.sort((a, b) => newest(b) - newest(a) || byCodeUnit(a.group_id, b.group_id));
}

const membership = (groups: DuplicateGroup[]): string[][] =>
  groups
    .map((g) => g.documents.map((d) => d.document_id).sort(byCodeUnit))
    .sort((a, b) => byCodeUnit(a.join(), b.join()));

// ---- properties ---------------------------------------------------------------------

describe('findDuplicateGroups (properties)', () => {
  it('finds the same groups as comparing every pair (≤ 40 documents)', () => {
    fc.assert(
      fc.property(inboxArb(40), (inbox) => {
        expect(membership(findDuplicateGroups(inbox))).to.deep.equal(membership(referenceGroups(inbox)));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the pairwise reference on canonical, order, reasons, confidence, ids and group order', () => {
    fc.assert(
      fc.property(inboxArb(40), (inbox) => {
        expect(findDuplicateGroups(inbox)).to.deep.equal(referenceGroups(inbox));
      }),
      { numRuns: 500 },
    );
  });

  it('produces the same groups, ids and order whatever the input order', () => {
    const inboxAndShuffle = inboxArb(40).chain((inbox) =>
      fc.tuple(fc.constant(inbox), fc.shuffledSubarray(inbox, { minLength: inbox.length, maxLength: inbox.length })),
    );
    fc.assert(
      fc.property(inboxAndShuffle, ([inbox, shuffled]) => {
        expect(findDuplicateGroups(shuffled)).to.deep.equal(findDuplicateGroups(inbox));
      }),
      { numRuns: 500 },
    );
  });

  it('reports only groups of two or more with an open member and no archived one, each document once', () => {
    fc.assert(
      fc.property(inboxArb(40), (inbox) => {
        const status = new Map(inbox.map((d) => [d.id, d.status]));
        const groups = findDuplicateGroups(inbox);
        const listed = groups.flatMap((g) => g.documents.map((d) => d.document_id));
        expect(new Set(listed).size).to.equal(listed.length);
        for (const g of groups) {
          expect(g.documents.length).to.be.at.least(2);
          expect(g.documents.some((d) => status.get(d.document_id) === 'open')).to.equal(true);
          expect(g.documents.every((d) => status.get(d.document_id) !== 'archived')).to.equal(true);
          expect(g.documents.map((d) => d.role)).to.deep.equal([
            'canonical',
            ...g.documents.slice(1).map(() => 'duplicate'),
          ]);
          expect(g.canonical_document_id).to.equal(g.documents[0]?.document_id);
          const ids = new Set(g.documents.map((d) => d.document_id));
          for (const d of g.documents) {
            expect(d.reasons.length).to.be.at.least(1);
            for (const r of d.reasons)
              expect(ids.has(r.with_document_id) && r.with_document_id !== d.document_id).to.equal(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('pages through exactly the groups at or above min_confidence, in order, without gaps or repeats', () => {
    fc.assert(
      fc.property(
        inboxArb(40),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(undefined, 0, 0.8, 0.9, 0.95, 1),
        (inbox, limit, minConfidence) => {
          const all = findDuplicateGroups(inbox);
          const seen: DuplicateGroup[] = [];
          let page = pageGroups(all, { limit, min_confidence: minConfidence });
          seen.push(...page.groups);
          for (let pages = 1; page.next_after !== null; pages++) {
            expect(pages, 'more pages than groups: paging does not advance').to.be.at.most(all.length);
            expect(page.groups).to.have.length(limit);
            page = pageGroups(all, { limit, min_confidence: minConfidence, after: page.next_after });
            seen.push(...page.groups);
          }
          expect(seen).to.deep.equal(all.filter((g) => minConfidence === undefined || g.confidence >= minConfidence));
        },
      ),
      { numRuns: 200 },
    );
  });
});
