// Hostile and malformed statement files (docs/guide/statement-import.md
// "Unreadable files"): every one is refused by the parser with its code and
// where, exact values, before anything is planned.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { StatementParseError, StatementRefusal } from '../../shared/kinds/statement-import/model.js';
import { parseStatementFile, type ParseOptions } from '../../shared/kinds/statement-import/parse.js';
import { checkXmlShape } from '../../shared/kinds/statement-import/xml-limits.js';
import type { CsvMapping } from '../../shared/kinds/statement-import/csv.js';

const sample = (name: string): string =>
  readFileSync(new URL(`../../../examples/statements/${name}`, import.meta.url)).toString('utf8');
const CAMT = sample('camt053-001-02.xml');
const OFX = sample('ofx-2-xml.ofx');
const MT940 = sample('mt940-nl-tags.sta');
const CSV: CsvMapping = {
  date_column: 'date',
  amount_column: 'amount',
  counterparty_column: 'name',
  date_format: 'YYYY-MM-DD',
  decimal_separator: '.',
  delimiter: ',',
  header: true,
  skip_rows: 0,
};

const options = (fields: Partial<ParseOptions>): ParseOptions => ({
  format: 'auto',
  encoding: null,
  csv: null,
  account_currency: 'EUR',
  ...fields,
});
const bytes = (text: string | Uint8Array) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text);

/** The refusal of `text` as [format, location, reason]. */
function refusal(text: string | Uint8Array, fields: Partial<ParseOptions> = {}): [string, string, string] {
  try {
    parseStatementFile(bytes(text), options(fields));
  } catch (error) {
    if (error instanceof StatementParseError) return [error.format, error.location, error.reason];
    throw error;
  }
  throw new Error('expected a StatementParseError');
}

function coded(text: string | Uint8Array): [string, Record<string, unknown>] {
  try {
    parseStatementFile(bytes(text), options({}));
  } catch (error) {
    if (error instanceof StatementRefusal) return [error.code, error.details];
    throw error;
  }
  throw new Error('expected a StatementRefusal');
}

const TEXT_RULE = 'text must not contain control characters, bidirectional overrides or lone surrogates';
const FIRST_NTRY = 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]';

describe('statement import: hostile and malformed files', () => {
  describe('text by the free-text rule of JSON bodies', () => {
    it('refuses a NUL in an MT940 :86: field, an OFX NAME and a CSV cell, naming the field', () => {
      expect(refusal(MT940.replace('/NAME/Café de Flore', '/NAME/Café\u0000de Flore'))).to.deep.equal([
        'mt940',
        'statement 1/entries[2]/counterparty_name',
        `${TEXT_RULE} (U+0000, a NUL)`,
      ]);
      expect(refusal(OFX.replace('Travel Agency', 'Travel\u0000Agency'))).to.deep.equal([
        'ofx',
        'statement 1/entries[2]/counterparty_name',
        `${TEXT_RULE} (U+0000, a NUL)`,
      ]);
      expect(refusal('date,amount,name\n2026-11-20,1.00,Ac\u0000me\n', { format: 'csv', csv: CSV })).to.deep.equal([
        'csv',
        'statement 1/entries[1]/counterparty_name',
        `${TEXT_RULE} (U+0000, a NUL)`,
      ]);
    });

    it('refuses a lone surrogate in a UTF-16LE MT940 (a pair, an emoji, is fine)', () => {
      const file = (name: string) => iconv.encode(MT940.replace('/NAME/Café de Flore', `/NAME/${name}`), 'utf-16le');
      expect(refusal(file('A\uD800B'), { format: 'mt940', encoding: 'utf-16le' })).to.deep.equal([
        'mt940',
        'statement 1/entries[2]/counterparty_name',
        `${TEXT_RULE} (U+D800)`,
      ]);
      const ok = parseStatementFile(file('A\u{1F600}B'), options({ format: 'mt940', encoding: 'utf-16le' }));
      expect(ok.statements[0]!.entries[1]!.counterparty_name).to.equal('A\u{1F600}B');
    });

    it('refuses control characters and bidirectional overrides in CAMT, OFX and MT940 text', () => {
      expect(refusal(CAMT.replace('BANK-REF-0001', 'BANK\u202EREF'))).to.deep.equal([
        'camt053',
        'statement 1/entries[1]/bank_reference',
        `${TEXT_RULE} (U+202E)`,
      ]);
      expect(refusal(OFX.replace('Train tickets', 'Train \u001b[31mtickets'))).to.deep.equal([
        'ofx',
        'statement 1/entries[2]/remittance_info',
        `${TEXT_RULE} (U+001B)`,
      ]);
      expect(refusal(MT940.replace('/REMI/Dinner clients/', '/REMI/Dinner\u2066clients/'))).to.deep.equal([
        'mt940',
        'statement 1/entries[2]/remittance_info',
        `${TEXT_RULE} (U+2066)`,
      ]);
    });
  });

  describe("a parser library's own failure is the file's: unreadable, never a crash", () => {
    it('refuses a document type declaration (entities, external DTDs) before parsing', () => {
      const withDtd = CAMT.replace(
        '<Document',
        '<!DOCTYPE Document [<!ENTITY % p SYSTEM "http://127.0.0.1/x.dtd"> %p;]>\n<Document',
      );
      expect(refusal(withDtd)).to.deep.equal([
        'camt053',
        'line 2',
        'a document type declaration (<!DOCTYPE, <!ENTITY) is not allowed',
      ]);
    });

    it('refuses a `<__proto__>` element and OFX nested past the stack, without the library’s text', () => {
      expect(refusal(CAMT.replace('<AcctSvcrRef>', '<__proto__>x</__proto__><AcctSvcrRef>'))).to.deep.equal([
        'camt053',
        'file',
        "the file's structure could not be read",
      ]);
      const deep = OFX.replace('<STMTTRN>', `${'<A>'.repeat(20_000)}${'</A>'.repeat(20_000)}<STMTTRN>`);
      expect(refusal(deep)).to.deep.equal(['ofx', 'file', 'the file is nested too deeply to read']);
    });
  });

  describe('what a parse may allocate', () => {
    it('refuses XML nested deeper than 64, an element with more than 32 attributes, or more elements than allowed', () => {
      const nested = CAMT.replace('<AcctSvcrRef>', `${'<a>'.repeat(70)}${'</a>'.repeat(70)}<AcctSvcrRef>`);
      expect(refusal(nested)).to.deep.equal(['camt053', 'line 39', 'elements nested more than 64 deep']);
      const attributes = Array.from({ length: 33 }, (_, i) => `a${i}="1"`).join(' ');
      expect(refusal(CAMT.replace('<AcctSvcrRef>', `<x ${attributes}/><AcctSvcrRef>`))).to.deep.equal([
        'camt053',
        'line 39',
        'an element with more than 32 attributes',
      ]);
      expect(refusal(OFX.replace('<STMTTRN>', `<x ${attributes}/><STMTTRN>`))[2]).to.equal(
        'an element with more than 32 attributes',
      );
      expect(() =>
        checkXmlShape('<a><b/><b/><b x="1>2"/></a>', 'camt053', {
          max_depth: 2,
          max_attributes: 1,
          max_total_attributes: 1,
          max_elements: 3,
        }),
      ).to.throw(StatementParseError, 'more than 3 elements');
      expect(() =>
        checkXmlShape('<a x="1"><b y="2"/></a>', 'camt053', {
          max_depth: 2,
          max_attributes: 1,
          max_total_attributes: 1,
          max_elements: 3,
        }),
      ).to.throw(StatementParseError, 'more than 1 attributes');
      // Comments, CDATA and quoted `>` are not elements.
      expect(() =>
        checkXmlShape('<a><!-- <b><b> --><![CDATA[<b>]]><b x="<>"/></a>', 'camt053', {
          max_depth: 2,
          max_attributes: 1,
          max_total_attributes: 1,
          max_elements: 2,
        }),
      ).not.to.throw();
    });
  });

  describe('dates', () => {
    it('refuses CAMT dates that are no calendar day, naming the element', () => {
      for (const bad of ['2026-02-30', '9999-99-99', '0000-00-00']) {
        const xml = CAMT.replace('<BookgDt><Dt>2026-11-03</Dt></BookgDt>', `<BookgDt><Dt>${bad}</Dt></BookgDt>`);
        expect(refusal(xml), bad).to.deep.equal([
          'camt053',
          `${FIRST_NTRY}/BookgDt/Dt`,
          `not a calendar date: "${bad}"`,
        ]);
      }
    });

    it('refuses an OFX date that is no calendar day', () => {
      expect(refusal(OFX.replace('<DTPOSTED>20261108', '<DTPOSTED>20261345'))).to.deep.equal([
        'ofx',
        'OFX/BANKMSGSRSV1/STMTTRNRS[1]/STMTRS/BANKTRANLIST/STMTTRN[1]/DTPOSTED',
        'not a calendar date: "20261345100000"',
      ]);
    });

    it('refuses an MT940 YYMMDD or entry MMDD that is no calendar day instead of rolling it over', () => {
      expect(refusal(MT940.replace(':61:261113C1200,00', ':61:261345C1200,00'))).to.deep.equal([
        'mt940',
        'line 5',
        'not a calendar date: "261345"',
      ]);
      expect(refusal(MT940.replace(':60F:C261113', ':60F:C260230'))).to.deep.equal([
        'mt940',
        'line 4',
        'not a calendar date: "260230"',
      ]);
      expect(refusal(MT940.replace(':61:261113C1200,00', ':61:2611131345C1200,00'))).to.deep.equal([
        'mt940',
        'line 5',
        'not an entry date near 2026-11-13: "1345"',
      ]);
    });

    it('books an MT940 entry date of early January on the value date of late December in the next year', () => {
      const file = parseStatementFile(
        bytes(MT940.replace(':61:261113C1200,00', ':61:2612310102C1200,00')),
        options({}),
      );
      expect(file.statements[0]!.entries[0]).to.deep.include({ booking_date: '2027-01-02', value_date: '2026-12-31' });
    });
  });

  describe('amounts', () => {
    it('reads MT940 amounts exactly from their text: extra decimals refused, no float on the way', () => {
      expect(refusal(MT940.replace(':61:261113C1200,00', ':61:261113C10,005'))).to.deep.equal([
        'mt940',
        'line 5',
        'more decimals than EUR has: "10,005"',
      ]);
      const exact = parseStatementFile(
        bytes(MT940.replace(':61:261113C1200,00', ':61:261113C1234567890123,45')),
        options({}),
      );
      expect(exact.statements[0]!.entries[0]!.amount_minor).to.equal(123_456_789_012_345);
      const reversal = parseStatementFile(bytes(MT940.replace(':61:261113C1200,00', ':61:261113RC0,29')), options({}));
      expect(reversal.statements[0]!.entries[0]!.amount_minor).to.equal(-29);
    });

    it('refuses an MT940 amount beyond ±(2^53 − 1) minor units as amount_out_of_range', () => {
      expect(coded(MT940.replace(':61:261113C1200,00', ':61:261113C999999999999999,'))).to.deep.equal([
        'amount_out_of_range',
        { field: 'line 5', value_minor: '99999999999999900', max_minor: Number.MAX_SAFE_INTEGER },
      ]);
    });

    it('refuses CAMT amounts with a sign, a comma, an apostrophe or a space', () => {
      for (const bad of ['-1250.50', '1250.50-', '+1250.50', '1,250.50', "1'250.50", '1 250.50', '1250,50']) {
        expect(refusal(CAMT.replace('<Amt Ccy="EUR">1250.50</Amt>', `<Amt Ccy="EUR">${bad}</Amt>`)), bad).to.deep.equal(
          ['camt053', `${FIRST_NTRY}/Amt`, `not an ISO 20022 amount (unsigned digits with a dot): "${bad}"`],
        );
      }
    });
  });

  describe('CAMT.053 versions', () => {
    it('reads .02 to .08 and refuses any other namespace, prefixed or not, with unsupported_statement_version', () => {
      for (const v of ['02', '05', '08']) {
        const xml = CAMT.replace('camt.053.001.02', `camt.053.001.${v}`);
        expect(parseStatementFile(bytes(xml), options({})).format, v).to.equal('camt053');
      }
      const supported = 'camt.053.001.02 to camt.053.001.08';
      const ns = (v: string) => `urn:iso:std:iso:20022:tech:xsd:camt.053.001.${v}`;
      for (const v of ['09', '0', '13']) {
        expect(coded(CAMT.replace('camt.053.001.02', `camt.053.001.${v}`)), v).to.deep.equal([
          'unsupported_statement_version',
          { format: 'camt053', version: ns(v), supported },
        ]);
      }
      const prefixed = CAMT.replace('<Document xmlns=', '<ns2:Document xmlns:ns2=')
        .replace('</Document>', '</ns2:Document>')
        .replace('camt.053.001.02', 'camt.053.001.09');
      expect(coded(prefixed)).to.deep.equal([
        'unsupported_statement_version',
        { format: 'camt053', version: ns('09'), supported },
      ]);
    });
  });

  describe('MT940 references', () => {
    it('takes only the bank reference after // as a bank reference, never the customer reference', () => {
      const text =
        ':20:X\n:25:DE89370400440532013000\n:28C:1\n:60F:C261101EUR0,00\n:61:2611011101C1,00NTRFMIETE\n:86:a\n:61:2611011101C2,00NTRFMIETE//B-7\n:86:b\n:62F:C261101EUR3,00\n';
      const entries = parseStatementFile(bytes(text), options({})).statements[0]!.entries;
      expect(entries.map((e) => e.bank_reference)).to.deep.equal([null, 'B-7']);
    });
  });
});
