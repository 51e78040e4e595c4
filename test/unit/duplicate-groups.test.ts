import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { InboxDocument, InboxDocumentStatus } from '../../shared/domain/books.js';
import {
  findDuplicateGroups,
  groupPosition,
  pageGroups,
  type DuplicateGroup,
  type DuplicateGroupDocument,
} from '../../shared/domain/duplicate-groups.js';
import type { DuplicateRule } from '../../shared/domain/duplicate-rules.js';
import { normaliseInvoiceNumber } from '../../shared/domain/invoice-number.js';
import { LEGAL_FORM_WORDS, vendorKey } from '../../shared/domain/vendor-key.js';

// ---- builders ---------------------------------------------------------------

/** 2026-03-<day> at <hour>:00 UTC. */
const at = (day: number, hour = 9): string =>
  `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

type Extracted = InboxDocument['extracted'];

interface DocSpec extends Extracted {
  status?: InboxDocumentStatus;
  received_at?: string;
  /** Defaults to a hash of its own, so no two documents share a file unless told. */
  sha256?: string;
}

function doc(id: string, spec: DocSpec = {}): InboxDocument {
  const { status = 'open', received_at = at(1), sha256 = `sha-of-${id}`, ...extracted } = spec;
  return {
    id,
    received_at,
    source: 'email',
    status,
    file: { sha256, name: `${id}.pdf`, size: 12_345, mime: 'application/pdf' },
    extracted,
  };
}

const acme: Extracted = { vendor_name: 'Acme GmbH' };
/** An invoice from Acme: same vendor, currency, total and date unless overridden. */
const acmeInvoice = (over: Extracted = {}): Extracted => ({
  ...acme,
  invoice_number: 'RE-0042',
  invoice_date: '2026-02-20',
  total_minor: 119_00,
  currency: 'EUR',
  ...over,
});

// The contract's confidences, written out independently of the code under test.
const CONFIDENCE: Record<DuplicateRule, number> = {
  same_file: 1,
  same_invoice_number: 0.95,
  same_amount_date_vendor: 0.8,
};

const expectedGroupId = (ids: string[]): string =>
  'grp_' +
  createHash('sha256')
    .update([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('\n'))
    .digest('hex')
    .slice(0, 16);

function member(
  document_id: string,
  role: 'canonical' | 'duplicate',
  status: 'open' | 'booked',
  received_at: string,
  ...reasons: [DuplicateRule, string][]
): DuplicateGroupDocument {
  return {
    document_id,
    role,
    status,
    received_at,
    reasons: reasons.map(([rule, with_document_id]) => ({ rule, with_document_id, confidence: CONFIDENCE[rule] })),
  };
}

function group(confidence: number, documents: DuplicateGroupDocument[]): DuplicateGroup {
  const canonical = documents.find((d) => d.role === 'canonical');
  return {
    group_id: expectedGroupId(documents.map((d) => d.document_id)),
    confidence,
    canonical_document_id: canonical?.document_id ?? '(none)',
    documents,
  };
}

// ---- vendor key -------------------------------------------------------------

describe('vendorKey', () => {
  it('gives `Müller  GmbH.` and `MÜLLER GMBH` the same key, name:müller', () => {
    expect(vendorKey({ vendor_name: 'Müller  GmbH.' })).to.equal('name:müller');
    expect(vendorKey({ vendor_name: 'MÜLLER GMBH' })).to.equal('name:müller');
  });

  it('removes trailing legal-form words repeatedly', () => {
    expect(vendorKey({ vendor_name: 'Acme Holding Co. Ltd' })).to.equal('name:acme holding');
    expect(vendorKey({ vendor_name: 'Bau GmbH & Co. KG' })).to.equal('name:bau');
    expect(vendorKey({ vendor_name: 'Nordic Oy Ab' })).to.equal('name:nordic');
    expect(vendorKey({ vendor_name: 'Verein e.V.' })).to.equal('name:verein');
  });

  it('keeps legal-form words that are not at the end', () => {
    expect(vendorKey({ vendor_name: 'AG Bau Partner GmbH' })).to.equal('name:ag bau partner');
  });

  it('removes punctuation without leaving a gap, and collapses whitespace runs', () => {
    expect(vendorKey({ vendor_name: 'Smith-Jones Ltd.' })).to.equal('name:smithjones');
    expect(vendorKey({ vendor_name: '  Acme \t\n  Tools  ' })).to.equal('name:acme tools');
    expect(vendorKey({ vendor_name: 'Acme - Tools' })).to.equal('name:acme tools');
  });

  it('keeps symbols, which are not punctuation', () => {
    expect(vendorKey({ vendor_name: 'A+B Ltd' })).to.equal('name:a+b');
    expect(vendorKey({ vendor_name: 'Acme® Inc.' })).to.equal('name:acme®');
  });

  it('applies NFKC and full case folding (ß matches SS)', () => {
    expect(vendorKey({ vendor_name: 'ＡＣＭＥ Ltd' })).to.equal('name:acme');
    expect(vendorKey({ vendor_name: 'Straße GmbH' })).to.equal('name:strasse');
    expect(vendorKey({ vendor_name: 'STRASSE GMBH' })).to.equal('name:strasse');
    // Decomposed ü (u + combining diaeresis) is the same vendor as precomposed ü.
    expect(vendorKey({ vendor_name: 'Mu\u0308ller GmbH' })).to.equal('name:müller');
  });

  it('uses the tax id, upper-cased without non-alphanumerics, in preference to the name', () => {
    expect(vendorKey({ vendor_tax_id: ' de 123.456-789 ', vendor_name: 'Acme GmbH' })).to.equal('tax:DE123456789');
    expect(vendorKey({ vendor_tax_id: 'ＤＥ１２３' })).to.equal('tax:DE123');
  });

  it('falls back to the name when the tax id normalises to nothing', () => {
    expect(vendorKey({ vendor_tax_id: ' - / ', vendor_name: 'Acme GmbH' })).to.equal('name:acme');
  });

  it('is missing (null) when nothing is left', () => {
    expect(vendorKey({})).to.equal(null);
    expect(vendorKey({ vendor_name: '' })).to.equal(null);
    expect(vendorKey({ vendor_name: ' ... ' })).to.equal(null);
    expect(vendorKey({ vendor_name: 'GmbH' })).to.equal(null);
    expect(vendorKey({ vendor_name: 'Co. Ltd.' })).to.equal(null);
  });

  it('exports exactly the legal-form list of §5.4', () => {
    expect([...LEGAL_FORM_WORDS]).to.deep.equal([
      'gmbh',
      'mbh',
      'ag',
      'kg',
      'ohg',
      'ug',
      'ev',
      'ltd',
      'limited',
      'plc',
      'llp',
      'llc',
      'inc',
      'incorporated',
      'corp',
      'corporation',
      'co',
      'company',
      'sa',
      'sas',
      'sarl',
      'srl',
      'spa',
      'bv',
      'nv',
      'oy',
      'ab',
      'as',
      'aps',
      'kft',
      'sro',
      'pty',
      'pte',
    ]);
  });
});

// ---- invoice number ---------------------------------------------------------

describe('normaliseInvoiceNumber', () => {
  it('upper-cases and removes everything but letters and digits', () => {
    expect(normaliseInvoiceNumber('RE-0042')).to.equal('RE0042');
    expect(normaliseInvoiceNumber('re 0042')).to.equal('RE0042');
    expect(normaliseInvoiceNumber('Rg.Nr. ä/12')).to.equal('RGNRÄ12');
  });

  it('removes the leading zeros of the whole string only', () => {
    expect(normaliseInvoiceNumber('0007')).to.equal('7');
    expect(normaliseInvoiceNumber('00-RE-01')).to.equal('RE01');
    expect(normaliseInvoiceNumber('A-0-0')).to.equal('A00');
  });

  it('applies NFKC first (full-width digits are digits)', () => {
    expect(normaliseInvoiceNumber('ＲＥ－００４２')).to.equal('RE0042');
    expect(normaliseInvoiceNumber('０４２')).to.equal('42');
  });

  it('is missing (null) when nothing is left', () => {
    expect(normaliseInvoiceNumber(undefined)).to.equal(null);
    expect(normaliseInvoiceNumber('')).to.equal(null);
    expect(normaliseInvoiceNumber(' -/- ')).to.equal(null);
    expect(normaliseInvoiceNumber('0')).to.equal(null);
    expect(normaliseInvoiceNumber('000')).to.equal(null);
  });
});

// ---- the pair rules -----------------------------------------------------------

describe('findDuplicateGroups', () => {
  it('finds nothing in an empty inbox or among unrelated documents', () => {
    expect(findDuplicateGroups([])).to.deep.equal([]);
    expect(findDuplicateGroups([doc('doc_a'), doc('doc_b'), doc('doc_c')])).to.deep.equal([]);
  });

  it('groups documents with the same file (same_file, 1.0)', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { sha256: 'f00d', received_at: at(1) }),
      doc('doc_b', { sha256: 'f00d', received_at: at(2) }),
    ]);
    expect(groups).to.deep.equal([
      group(1, [
        member('doc_a', 'canonical', 'open', at(1), ['same_file', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_file', 'doc_a']),
      ]),
    ]);
  });

  it('matches invoice numbers RE-0042 and re 0042 from the same vendor (same_invoice_number, 0.95)', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), vendor_name: 'Müller  GmbH.', invoice_number: 'RE-0042' }),
      doc('doc_b', { received_at: at(2), vendor_name: 'MÜLLER GMBH', invoice_number: 're 0042' }),
    ]);
    expect(groups).to.deep.equal([
      group(0.95, [
        member('doc_a', 'canonical', 'open', at(1), ['same_invoice_number', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_invoice_number', 'doc_a']),
      ]),
    ]);
  });

  it('lets the tax id beat the name: same name, different tax ids, same invoice number is no duplicate', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { vendor_name: 'Acme GmbH', vendor_tax_id: 'DE111', invoice_number: 'RE-0042' }),
      doc('doc_b', { vendor_name: 'Acme GmbH', vendor_tax_id: 'DE222', invoice_number: 'RE-0042' }),
    ]);
    expect(groups).to.deep.equal([]);
  });

  it('matches the same tax id whatever the names say', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), vendor_name: 'Acme GmbH', vendor_tax_id: 'de 111', invoice_number: '7' }),
      doc('doc_b', {
        received_at: at(2),
        vendor_name: 'Totally Other Ltd',
        vendor_tax_id: 'DE-111',
        invoice_number: '007',
      }),
    ]);
    expect(groups).to.deep.equal([
      group(0.95, [
        member('doc_a', 'canonical', 'open', at(1), ['same_invoice_number', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_invoice_number', 'doc_a']),
      ]),
    ]);
  });

  it('never equates a tax-id key with a name key', () => {
    // Same name and invoice number, but only one of them has a tax id.
    const groups = findDuplicateGroups([
      doc('doc_a', { vendor_name: 'Acme GmbH', vendor_tax_id: 'DE111', invoice_number: 'RE-0042' }),
      doc('doc_b', { vendor_name: 'Acme GmbH', invoice_number: 'RE-0042' }),
      // A name that normalises to the text of the other's tax id.
      doc('doc_c', { vendor_name: 'DE111', invoice_number: 'RE-0042' }),
    ]);
    expect(groups).to.deep.equal([]);
  });

  it('pairs same vendor, currency and total 3 calendar days apart (same_amount_date_vendor, 0.8), across a month end', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), ...acmeInvoice({ invoice_number: 'A-1', invoice_date: '2026-02-27' }) }),
      doc('doc_b', { received_at: at(2), ...acmeInvoice({ invoice_number: 'B-2', invoice_date: '2026-03-02' }) }),
    ]);
    expect(groups).to.deep.equal([
      group(0.8, [
        member('doc_a', 'canonical', 'open', at(1), ['same_amount_date_vendor', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_amount_date_vendor', 'doc_a']),
      ]),
    ]);
  });

  it('does not pair invoice dates 4 days apart', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { ...acmeInvoice({ invoice_number: 'A-1', invoice_date: '2026-02-27' }) }),
      doc('doc_b', { ...acmeInvoice({ invoice_number: 'B-2', invoice_date: '2026-03-03' }) }),
    ]);
    expect(groups).to.deep.equal([]);
  });

  it('does not pair the same total in different currencies, or different totals', () => {
    expect(
      findDuplicateGroups([
        doc('doc_a', { ...acmeInvoice({ invoice_number: 'A-1', currency: 'EUR' }) }),
        doc('doc_b', { ...acmeInvoice({ invoice_number: 'B-2', currency: 'USD' }) }),
      ]),
    ).to.deep.equal([]);
    expect(
      findDuplicateGroups([
        doc('doc_a', { ...acmeInvoice({ invoice_number: 'A-1', total_minor: 100 }) }),
        doc('doc_b', { ...acmeInvoice({ invoice_number: 'B-2', total_minor: 101 }) }),
      ]),
    ).to.deep.equal([]);
  });

  it('gives one reason per rule when two documents pair under several rules, strongest first', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), sha256: 'f00d', ...acmeInvoice() }),
      doc('doc_b', { received_at: at(2), sha256: 'f00d', ...acmeInvoice() }),
    ]);
    expect(groups).to.deep.equal([
      group(1, [
        member(
          'doc_a',
          'canonical',
          'open',
          at(1),
          ['same_file', 'doc_b'],
          ['same_invoice_number', 'doc_b'],
          ['same_amount_date_vendor', 'doc_b'],
        ),
        member(
          'doc_b',
          'duplicate',
          'open',
          at(2),
          ['same_file', 'doc_a'],
          ['same_invoice_number', 'doc_a'],
          ['same_amount_date_vendor', 'doc_a'],
        ),
      ]),
    ]);
  });

  // ---- groups are connected components ---------------------------------------

  it('chains pairs of different rules into one group: A~B by file, B~C by invoice number, A and C unpaired', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), sha256: 'f00d' }),
      doc('doc_b', { received_at: at(2), sha256: 'f00d', ...acme, invoice_number: 'RE-0042' }),
      doc('doc_c', { received_at: at(3), ...acme, invoice_number: 're 0042' }),
    ]);
    expect(groups).to.deep.equal([
      group(0.95, [
        member('doc_a', 'canonical', 'open', at(1), ['same_file', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_file', 'doc_a'], ['same_invoice_number', 'doc_c']),
        member('doc_c', 'duplicate', 'open', at(3), ['same_invoice_number', 'doc_b']),
      ]),
    ]);
  });

  it('chains invoice dates: 1st~4th and 4th~7th make one group though 1st and 7th are 6 days apart', () => {
    const groups = findDuplicateGroups([
      doc('doc_c', { received_at: at(3), ...acmeInvoice({ invoice_number: 'C', invoice_date: '2026-02-07' }) }),
      doc('doc_a', { received_at: at(1), ...acmeInvoice({ invoice_number: 'A', invoice_date: '2026-02-01' }) }),
      doc('doc_b', { received_at: at(2), ...acmeInvoice({ invoice_number: 'B', invoice_date: '2026-02-04' }) }),
    ]);
    expect(groups).to.deep.equal([
      group(0.8, [
        member('doc_a', 'canonical', 'open', at(1), ['same_amount_date_vendor', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_amount_date_vendor', 'doc_a']),
        member('doc_c', 'duplicate', 'open', at(3), ['same_amount_date_vendor', 'doc_b']),
      ]),
    ]);
  });

  it('takes the lowest member confidence as the group confidence (A~B by date, B=C by file → 0.8)', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), ...acmeInvoice({ invoice_number: 'A' }) }),
      doc('doc_b', { received_at: at(2), sha256: 'f00d', ...acmeInvoice({ invoice_number: 'B' }) }),
      doc('doc_c', { received_at: at(3), sha256: 'f00d' }),
    ]);
    expect(groups).to.deep.equal([
      group(0.8, [
        member('doc_a', 'canonical', 'open', at(1), ['same_amount_date_vendor', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_file', 'doc_c'], ['same_amount_date_vendor', 'doc_a']),
        member('doc_c', 'duplicate', 'open', at(3), ['same_file', 'doc_b']),
      ]),
    ]);
  });

  // ---- which documents count ---------------------------------------------------

  it('ignores archived documents', () => {
    expect(
      findDuplicateGroups([
        doc('doc_a', { status: 'archived', sha256: 'f00d' }),
        doc('doc_b', { status: 'open', sha256: 'f00d' }),
      ]),
    ).to.deep.equal([]);
  });

  it('does not let an archived document bridge two others', () => {
    expect(
      findDuplicateGroups([
        doc('doc_a', { sha256: 'f00d' }),
        doc('doc_x', { status: 'archived', sha256: 'f00d', ...acme, invoice_number: 'RE-0042' }),
        doc('doc_b', { ...acme, invoice_number: 'RE-0042' }),
      ]),
    ).to.deep.equal([]);
  });

  it('does not report a group of only booked documents', () => {
    expect(
      findDuplicateGroups([
        doc('doc_a', { status: 'booked', sha256: 'f00d' }),
        doc('doc_b', { status: 'booked', sha256: 'f00d' }),
      ]),
    ).to.deep.equal([]);
  });

  // ---- canonical and order -----------------------------------------------------

  it('makes the earliest received booked member canonical, then lists the rest by received_at', () => {
    const groups = findDuplicateGroups([
      doc('doc_a', { status: 'open', received_at: at(1), sha256: 'f00d' }),
      doc('doc_b', { status: 'booked', received_at: at(3), sha256: 'f00d' }),
      doc('doc_c', { status: 'booked', received_at: at(2), sha256: 'f00d' }),
      doc('doc_d', { status: 'open', received_at: at(4), sha256: 'f00d' }),
    ]);
    expect(groups).to.deep.equal([
      group(1, [
        member('doc_c', 'canonical', 'booked', at(2), ['same_file', 'doc_a']),
        member('doc_a', 'duplicate', 'open', at(1), ['same_file', 'doc_c']),
        member('doc_b', 'duplicate', 'booked', at(3), ['same_file', 'doc_c']),
        member('doc_d', 'duplicate', 'open', at(4), ['same_file', 'doc_c']),
      ]),
    ]);
  });

  it('makes the earliest received member canonical when none is booked, ties broken by id', () => {
    const groups = findDuplicateGroups([
      doc('doc_b', { received_at: at(1), sha256: 'f00d' }),
      doc('doc_c', { received_at: at(5), sha256: 'f00d' }),
      doc('doc_a', { received_at: at(1), sha256: 'f00d' }),
    ]);
    expect(groups).to.deep.equal([
      group(1, [
        member('doc_a', 'canonical', 'open', at(1), ['same_file', 'doc_b']),
        member('doc_b', 'duplicate', 'open', at(1), ['same_file', 'doc_a']),
        member('doc_c', 'duplicate', 'open', at(5), ['same_file', 'doc_a']),
      ]),
    ]);
  });

  it('compares received_at as instants, not strings', () => {
    // As strings "…10:00:00.500Z" sorts before "…10:00:00Z"; as instants it is later.
    // "…11:00:00+02:00" is 09:00Z, the earliest.
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: '2026-03-01T10:00:00.500Z', sha256: 'f00d' }),
      doc('doc_b', { received_at: '2026-03-01T10:00:00Z', sha256: 'f00d' }),
      doc('doc_c', { received_at: '2026-03-01T11:00:00+02:00', sha256: 'f00d' }),
    ]);
    expect(groups[0]?.documents.map((d) => d.document_id)).to.deep.equal(['doc_c', 'doc_b', 'doc_a']);
  });

  // ---- reasons --------------------------------------------------------------------

  it('names the first member in group order, which starts with the canonical', () => {
    // doc_z is booked and received last, yet canonical, so everyone's invoice-number partner.
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), ...acme, invoice_number: 'RE-1' }),
      doc('doc_b', { received_at: at(2), ...acme, invoice_number: 'RE-1' }),
      doc('doc_z', { received_at: at(9), status: 'booked', ...acme, invoice_number: 'RE-1' }),
    ]);
    expect(groups).to.deep.equal([
      group(0.95, [
        member('doc_z', 'canonical', 'booked', at(9), ['same_invoice_number', 'doc_a']),
        member('doc_a', 'duplicate', 'open', at(1), ['same_invoice_number', 'doc_z']),
        member('doc_b', 'duplicate', 'open', at(2), ['same_invoice_number', 'doc_z']),
      ]),
    ]);
  });

  it('names, for the date window, the first member in group order within 3 days, not the nearest date', () => {
    const groups = findDuplicateGroups([
      doc('doc_p', { received_at: at(1), ...acmeInvoice({ invoice_number: 'P', invoice_date: '2026-02-01' }) }),
      doc('doc_q', { received_at: at(2), ...acmeInvoice({ invoice_number: 'Q', invoice_date: '2026-02-03' }) }),
      doc('doc_r', { received_at: at(3), ...acmeInvoice({ invoice_number: 'R', invoice_date: '2026-02-04' }) }),
      doc('doc_s', { received_at: at(4), ...acmeInvoice({ invoice_number: 'S', invoice_date: '2026-02-07' }) }),
    ]);
    expect(groups).to.deep.equal([
      group(0.8, [
        member('doc_p', 'canonical', 'open', at(1), ['same_amount_date_vendor', 'doc_q']),
        member('doc_q', 'duplicate', 'open', at(2), ['same_amount_date_vendor', 'doc_p']),
        member('doc_r', 'duplicate', 'open', at(3), ['same_amount_date_vendor', 'doc_p']),
        member('doc_s', 'duplicate', 'open', at(4), ['same_amount_date_vendor', 'doc_r']),
      ]),
    ]);
  });

  // ---- missing fields never match -------------------------------------------------

  describe('a rule never matches on a missing field', () => {
    const pairOf = (a: Extracted, b: Extracted): DuplicateGroup[] =>
      findDuplicateGroups([doc('doc_a', { ...a }), doc('doc_b', { ...b })]);

    it('missing invoice numbers (absent, or normalising to nothing)', () => {
      expect(pairOf({ ...acme }, { ...acme })).to.deep.equal([]);
      expect(pairOf({ ...acme, invoice_number: '000' }, { ...acme, invoice_number: '0' })).to.deep.equal([]);
      expect(pairOf({ ...acme, invoice_number: '--' }, { ...acme, invoice_number: '' })).to.deep.equal([]);
    });

    it('missing vendor (no name nor tax id, or a name of legal forms only)', () => {
      const sameInvoice = { invoice_number: 'RE-1', invoice_date: '2026-02-01', total_minor: 500, currency: 'EUR' };
      expect(pairOf({ ...sameInvoice }, { ...sameInvoice })).to.deep.equal([]);
      expect(pairOf({ ...sameInvoice, vendor_name: 'GmbH' }, { ...sameInvoice, vendor_name: 'GmbH' })).to.deep.equal(
        [],
      );
      expect(pairOf({ ...sameInvoice, vendor_name: '' }, { ...sameInvoice, vendor_tax_id: '' })).to.deep.equal([]);
    });

    it('missing total, currency or invoice date', () => {
      const base = { ...acme, invoice_date: '2026-02-01', total_minor: 500, currency: 'EUR' };
      const { total_minor: _t, ...noTotal } = base;
      const { currency: _c, ...noCurrency } = base;
      const { invoice_date: _d, ...noDate } = base;
      expect(pairOf(noTotal, noTotal)).to.deep.equal([]);
      expect(pairOf(noCurrency, noCurrency)).to.deep.equal([]);
      expect(pairOf(noDate, noDate)).to.deep.equal([]);
      expect(pairOf({ ...base, currency: ' ' }, { ...base, currency: ' ' })).to.deep.equal([]);
    });

    it('an invoice date that is not a calendar date counts as missing', () => {
      const base = { ...acme, total_minor: 500, currency: 'EUR' };
      expect(pairOf({ ...base, invoice_date: '2026-02-30' }, { ...base, invoice_date: '2026-02-30' })).to.deep.equal(
        [],
      );
      expect(pairOf({ ...base, invoice_date: '01.02.2026' }, { ...base, invoice_date: '01.02.2026' })).to.deep.equal(
        [],
      );
    });

    it('an empty file hash', () => {
      expect(findDuplicateGroups([doc('doc_a', { sha256: '' }), doc('doc_b', { sha256: '' })])).to.deep.equal([]);
    });

    it('the same fields do match once present (control)', () => {
      const full = { ...acme, invoice_date: '2026-02-01', total_minor: 500, currency: 'EUR' };
      expect(pairOf(full, full)).to.have.length(1);
    });
  });

  // ---- group id and order -----------------------------------------------------------

  it('computes the group id from the member ids sorted by code unit and joined with newlines', () => {
    // Code-unit order puts "doc_B" before "doc_a"; locale order would not.
    const groups = findDuplicateGroups([
      doc('doc_a', { received_at: at(1), sha256: 'f00d' }),
      doc('doc_B', { received_at: at(2), sha256: 'f00d' }),
      doc('doc_ä', { received_at: at(3), sha256: 'f00d' }),
    ]);
    const expected = 'grp_' + createHash('sha256').update('doc_B\ndoc_a\ndoc_ä', 'utf8').digest('hex').slice(0, 16);
    expect(groups.map((g) => g.group_id)).to.deep.equal([expected]);
  });

  it('orders groups by newest member received_at descending, then by group id', () => {
    const docs = [
      // Group 1: newest member received on the 5th.
      doc('doc_1a', { received_at: at(1), sha256: 'one' }),
      doc('doc_1b', { received_at: at(5), sha256: 'one' }),
      // Groups 2 and 3: newest member received on the 9th (a booked one in group 3).
      doc('doc_2a', { received_at: at(9), sha256: 'two' }),
      doc('doc_2b', { received_at: at(2), sha256: 'two' }),
      doc('doc_3a', { received_at: at(3), sha256: 'three' }),
      doc('doc_3b', { received_at: at(9), sha256: 'three', status: 'booked' }),
      // Group 4: newest on the 7th.
      doc('doc_4a', { received_at: at(7), sha256: 'four' }),
      doc('doc_4b', { received_at: at(6), sha256: 'four' }),
    ];
    const id1 = expectedGroupId(['doc_1a', 'doc_1b']);
    const id2 = expectedGroupId(['doc_2a', 'doc_2b']);
    const id3 = expectedGroupId(['doc_3a', 'doc_3b']);
    const id4 = expectedGroupId(['doc_4a', 'doc_4b']);
    const tied = [id2, id3].sort((a, b) => (a < b ? -1 : 1));
    expect(findDuplicateGroups(docs).map((g) => g.group_id)).to.deep.equal([...tied, id4, id1]);
  });
});

// ---- paging ---------------------------------------------------------------------

describe('pageGroups', () => {
  // Four groups, newest first: file (1.0, newest 9th), invoice (0.95, 7th), date (0.8, 5th), file (1.0, 3rd).
  const inbox = (): InboxDocument[] => [
    doc('doc_f1', { received_at: at(8), sha256: 'f1' }),
    doc('doc_f2', { received_at: at(9), sha256: 'f1' }),
    doc('doc_i1', { received_at: at(6), ...acme, invoice_number: 'X-1' }),
    doc('doc_i2', { received_at: at(7), ...acme, invoice_number: 'x1' }),
    doc('doc_d1', { received_at: at(4), ...acmeInvoice({ invoice_number: 'D1' }) }),
    doc('doc_d2', { received_at: at(5), ...acmeInvoice({ invoice_number: 'D2' }) }),
    doc('doc_g1', { received_at: at(2), sha256: 'g1' }),
    doc('doc_g2', { received_at: at(3), sha256: 'g1' }),
  ];
  const F = expectedGroupId(['doc_f1', 'doc_f2']);
  const I = expectedGroupId(['doc_i1', 'doc_i2']);
  const D = expectedGroupId(['doc_d1', 'doc_d2']);
  const G = expectedGroupId(['doc_g1', 'doc_g2']);
  const ids = (gs: DuplicateGroup[]): string[] => gs.map((g) => g.group_id);

  it('returns the first `limit` groups and the position of the last when more follow', () => {
    const all = findDuplicateGroups(inbox());
    expect(ids(all)).to.deep.equal([F, I, D, G]);
    const page = pageGroups(all, { limit: 2 });
    expect(ids(page.groups)).to.deep.equal([F, I]);
    expect(page.next_after).to.deep.equal({ newest_received_at: at(7), group_id: I });
  });

  it('continues strictly after a position and ends with next_after null', () => {
    const all = findDuplicateGroups(inbox());
    const second = pageGroups(all, { limit: 2, after: { newest_received_at: at(7), group_id: I } });
    expect(ids(second.groups)).to.deep.equal([D, G]);
    expect(second.next_after).to.equal(null);
  });

  it('gives next_after null when the page holds exactly the last groups', () => {
    expect(pageGroups(findDuplicateGroups(inbox()), { limit: 4 }).next_after).to.equal(null);
  });

  it('keeps only groups with confidence at least min_confidence', () => {
    const all = findDuplicateGroups(inbox());
    expect(ids(pageGroups(all, { limit: 50, min_confidence: 0.95 }).groups)).to.deep.equal([F, I, G]);
    expect(ids(pageGroups(all, { limit: 50, min_confidence: 1 }).groups)).to.deep.equal([F, G]);
    expect(ids(pageGroups(all, { limit: 50, min_confidence: 0 }).groups)).to.deep.equal([F, I, D, G]);
    const filtered = pageGroups(all, { limit: 1, min_confidence: 1 });
    expect(filtered.next_after).to.deep.equal(groupPosition(filtered.groups[0] as DuplicateGroup));
    expect(ids(pageGroups(all, { limit: 1, min_confidence: 1, after: filtered.next_after }).groups)).to.deep.equal([G]);
  });

  it('stays in place when a group before the position disappears', () => {
    const first = pageGroups(findDuplicateGroups(inbox()), { limit: 1 });
    expect(ids(first.groups)).to.deep.equal([F]);
    // The file duplicate gets archived; the next page still starts at the invoice group.
    const changed = inbox().map((d) => (d.id === 'doc_f2' ? { ...d, status: 'archived' as const } : d));
    expect(ids(pageGroups(findDuplicateGroups(changed), { limit: 1, after: first.next_after }).groups)).to.deep.equal([
      I,
    ]);
  });

  it('places the position by instant, so an equivalent timestamp spelling continues the same way', () => {
    const all = findDuplicateGroups(inbox());
    const page = pageGroups(all, { limit: 2, after: { newest_received_at: '2026-03-07T09:00:00Z', group_id: I } });
    expect(ids(page.groups)).to.deep.equal([D, G]);
  });

  it('rejects a limit below 1', () => {
    expect(() => pageGroups([], { limit: 0 })).to.throw(RangeError);
  });
});
