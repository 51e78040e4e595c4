import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import type { CsvMapping } from '../../shared/kinds/statement-import/csv.js';
import { StatementParseError, type ParsedStatementFile } from '../../shared/kinds/statement-import/model.js';
import { parseStatementFile, sniffFormat, type ParseOptions } from '../../shared/kinds/statement-import/parse.js';
import { decimalToMinor } from '../../shared/kinds/statement-import/money.js';

const example = (name: string): Buffer =>
  readFileSync(new URL(`../../../examples/statements/${name}`, import.meta.url));
const options = (fields: Partial<ParseOptions> = {}): ParseOptions => ({
  format: 'auto',
  encoding: null,
  csv: null,
  account_currency: 'EUR',
  ...fields,
});
const parse = (bytes: Uint8Array | string, fields: Partial<ParseOptions> = {}): ParsedStatementFile =>
  parseStatementFile(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes, options(fields));

function parseError(bytes: Uint8Array | string, fields: Partial<ParseOptions> = {}): StatementParseError {
  try {
    parse(bytes, fields);
  } catch (error) {
    if (error instanceof StatementParseError) return error;
    throw error;
  }
  throw new Error('expected a StatementParseError');
}

const entry = (fields: Record<string, unknown>) => ({
  value_date: null,
  currency: 'EUR',
  bank_reference: null,
  counterparty_name: null,
  counterparty_iban: null,
  remittance_info: null,
  details: [],
  pending: false,
  ...fields,
});

const CSV_MAPPING: CsvMapping = {
  date_column: 'Buchungstag',
  value_date_column: 'Valuta',
  counterparty_column: 'Empfänger/Auftraggeber',
  iban_column: 'IBAN',
  remittance_column: 'Verwendungszweck',
  amount_column: 'Betrag',
  currency_column: 'Währung',
  date_format: 'DD.MM.YYYY',
  decimal_separator: ',',
  delimiter: ';',
  header: true,
  skip_rows: 3,
};

describe('statement import: reading files', () => {
  describe('amounts', () => {
    it('converts decimal text to integer minor units by the currency exponent, without floating point', () => {
      const at = { format: 'csv' as const, location: 'x' };
      expect(decimalToMinor('1234.56', 'EUR', at)).to.equal(123456);
      expect(decimalToMinor('0.1', 'EUR', at)).to.equal(10);
      expect(decimalToMinor('1.234,56', 'EUR', at, ',')).to.equal(123456);
      expect(decimalToMinor('-4,5', 'EUR', at, ',')).to.equal(-450);
      expect(decimalToMinor('12-', 'EUR', at)).to.equal(-1200);
      expect(decimalToMinor('1500', 'JPY', at)).to.equal(1500);
      expect(decimalToMinor('1.234', 'KWD', at)).to.equal(1234);
    });

    it('refuses more decimals than the currency has, unless they are zeros', () => {
      const at = { format: 'csv' as const, location: 'line 7' };
      expect(decimalToMinor('1.500', 'EUR', at)).to.equal(150);
      expect(() => decimalToMinor('1.505', 'EUR', at)).to.throw(StatementParseError, /more decimals/);
      expect(() => decimalToMinor('2.5', 'JPY', at)).to.throw(StatementParseError, /more decimals/);
      expect(() => decimalToMinor('12a', 'EUR', at)).to.throw(StatementParseError, /not an amount/);
    });
  });

  describe('CAMT.053', () => {
    it('reads .001.02: credit and debit, non-ASCII names, a batch entry with its details, a pending entry marked pending', () => {
      const file = parse(example('camt053-001-02.xml'));
      expect(file.format).to.equal('camt053');
      expect(file.statements).to.have.length(1);
      const s = file.statements[0]!;
      expect({ ...s, entries: undefined }).to.deep.equal({
        reference: 'STMT-2026-11-03',
        account: { iban: 'DE89370400440532013000', account_number: null },
        currency: 'EUR',
        start_date: '2026-11-03',
        end_date: '2026-11-03',
        opening_balance_minor: 100_000,
        closing_balance_minor: 190_550,
        entries: undefined,
      });
      expect(s.entries).to.deep.equal([
        entry({
          booking_date: '2026-11-03',
          value_date: '2026-11-03',
          amount_minor: 125_050,
          bank_reference: 'BANK-REF-0001',
          counterparty_name: 'Müller & Söhne GmbH',
          counterparty_iban: 'DE44500105175407324931',
          remittance_info: 'Rechnung 2026-017 Kunde 4711',
        }),
        entry({
          booking_date: '2026-11-03',
          value_date: '2026-11-03',
          amount_minor: -4_500,
          bank_reference: 'BANK-REF-0002',
          counterparty_name: 'Bürobedarf Köln',
          counterparty_iban: 'DE75512108001245126199',
          remittance_info: 'RF18539007547034',
        }),
        entry({
          booking_date: '2026-11-03',
          value_date: '2026-11-04',
          amount_minor: -30_000,
          bank_reference: 'BANK-REF-0003',
          details: [
            {
              amount_minor: 10_000,
              counterparty_name: 'Supplier One',
              remittance_info: 'Order 1',
              end_to_end_id: 'PAY-0001',
            },
            {
              amount_minor: 20_000,
              counterparty_name: 'Supplier Two',
              remittance_info: 'Order 2',
              end_to_end_id: 'PAY-0002',
            },
          ],
        }),
        entry({
          booking_date: '2026-11-05',
          value_date: '2026-11-05',
          amount_minor: 9_999,
          bank_reference: 'BANK-REF-0004',
          pending: true,
        }),
      ]);
    });

    it('reads .001.08: several statements in one file, Sts/Cd, Pty/Nm, a booking date-time', () => {
      const file = parse(example('camt053-001-08.xml'));
      expect(
        file.statements.map((s) => [s.reference, s.opening_balance_minor, s.closing_balance_minor, s.entries.length]),
      ).to.deep.equal([
        ['STMT-2026-11-04', 190_550, 195_550, 2],
        ['STMT-2026-11-05', 195_550, 185_550, 1],
      ]);
      expect(file.statements[0]!.entries[0]).to.deep.equal(
        entry({
          booking_date: '2026-11-04',
          value_date: '2026-11-04',
          amount_minor: 2_500,
          bank_reference: 'BANK-REF-0101',
          counterparty_name: 'Åsa Ørsted',
          counterparty_iban: 'DK5000400440116243',
          remittance_info: 'Membership fee',
        }),
      );
      expect(file.statements[1]!.entries[0]).to.deep.include({
        amount_minor: -10_000,
        counterparty_name: 'Hausverwaltung Groß',
        counterparty_iban: 'DE12500105170648489890',
      });
    });

    it('takes NtryRef as the bank reference when there is no AcctSvcrRef', () => {
      const xml = example('camt053-001-02.xml')
        .toString('utf8')
        .replace('<AcctSvcrRef>BANK-REF-0001</AcctSvcrRef>', '');
      expect(parse(xml).statements[0]!.entries[0]!.bank_reference).to.equal('N-0001');
    });

    it('names the line and column of malformed XML', () => {
      const xml = example('camt053-001-02.xml').toString('utf8').replace('</Dbtr>', '</Dbtrr>');
      const error = parseError(xml);
      expect(error.format).to.equal('camt053');
      expect(error.location).to.match(/^line 45, column \d+$/);
    });

    it('names the element of a well-formed file that breaks the format', () => {
      const xml = example('camt053-001-02.xml')
        .toString('utf8')
        .replace(
          '<CdtDbtInd>DBIT</CdtDbtInd>\n        <Sts>BOOK</Sts>',
          '<CdtDbtInd>DEBIT</CdtDbtInd>\n        <Sts>BOOK</Sts>',
        );
      const error = parseError(xml, { format: 'camt053' });
      expect([error.format, error.location]).to.deep.equal([
        'camt053',
        'Document/BkToCstmrStmt/Stmt[1]/Ntry[2]/CdtDbtInd',
      ]);
    });

    it('reads a file declared in ISO-8859-1 as declared', () => {
      const xml = example('camt053-001-08.xml')
        .toString('utf8')
        .replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
        .replace(/Åsa Ørsted/g, 'Jörg');
      const file = parse(iconv.encode(xml, 'latin1'));
      expect(file.statements[0]!.entries[0]!.counterparty_name).to.equal('Jörg');
    });
  });

  describe('OFX', () => {
    it('reads OFX 1.x SGML in its declared CHARSET 1252', () => {
      const file = parse(example('ofx-1-sgml.ofx'));
      expect(file.format).to.equal('ofx');
      expect({ ...file.statements[0]!, entries: undefined }).to.deep.equal({
        reference: '20261108-1',
        account: { iban: null, account_number: '0532013000' },
        currency: 'EUR',
        start_date: '2026-11-06',
        end_date: '2026-11-07',
        opening_balance_minor: null,
        closing_balance_minor: 232_320,
        entries: undefined,
      });
      expect(file.statements[0]!.entries).to.deep.equal([
        entry({
          booking_date: '2026-11-06',
          value_date: '2026-11-06',
          amount_minor: 48_000,
          bank_reference: 'OFX-20261106-001',
          counterparty_name: 'Crème Brûlée Café SARL',
          remittance_info: 'Facture 88 – acompte',
        }),
        entry({
          booking_date: '2026-11-07',
          amount_minor: -1_230,
          bank_reference: 'OFX-20261107-002',
          counterparty_name: 'Bank fees',
          remittance_info: 'Kontoführung',
        }),
      ]);
    });

    it('reads OFX 2.x XML: an entry in another currency keeps its currency, pending transactions are marked pending', () => {
      const entries = parse(example('ofx-2-xml.ofx')).statements[0]!.entries;
      expect(entries).to.deep.equal([
        entry({
          booking_date: '2026-11-08',
          amount_minor: 150_000,
          bank_reference: 'OFX2-0001',
          counterparty_name: 'Żółć Trading sp. z o.o.',
          remittance_info: 'Invoice 2026-031',
        }),
        entry({
          booking_date: '2026-11-09',
          amount_minor: -6_000,
          currency: 'USD',
          bank_reference: 'OFX2-0002',
          counterparty_name: 'Travel Agency',
          remittance_info: 'Train tickets',
        }),
        entry({
          booking_date: '2026-11-10',
          amount_minor: 7_000,
          counterparty_name: 'Pending Customer',
          pending: true,
        }),
      ]);
    });

    it('names the element of a corrupt OFX file', () => {
      const text = example('ofx-2-xml.ofx')
        .toString('utf8')
        .replace('</BANKTRANLIST>', '')
        .replace('<DTSTART>20261108</DTSTART>', '<DTSTART>20261108');
      const error = parseError(text);
      expect(error.format).to.equal('ofx');
      expect(error.location).to.match(/^element [A-Z]+$/);
    });

    it('reads OFX 1.x values whose end tag is left out, an empty one among them, and CDATA and self-closed values', () => {
      const head = 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n';
      const trn = (fitid: string, amount: string, rest: string) =>
        `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20110331<TRNAMT>${amount}<FITID>${fitid}${rest}</STMTTRN>`;
      const text =
        `${head}<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>7<STMTRS><CURDEF>USD` +
        '<BANKACCTFROM><BANKID>1<ACCTID>123<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20110301' +
        trn('a', '-1.00', '<NAME>Shop & Co\n<MEMO>\n') +
        trn('b', '-2.00', '<NAME><![CDATA[Caf\u00e9 <Bar>]]></NAME><MEMO/>') +
        trn('c', '-3.00', '<NAME></NAME><MEMO>x</MEMO>') +
        trn('d', '-4.00', '<NAME>AT&amp;T &lt;1&gt;\n<MEMO><![CDATA[a&amp;b]]>\n') +
        '</BANKTRANLIST><LEDGERBAL><BALAMT>10.00<DTASOF>20110331</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>';
      const [statement] = parse(text).statements;
      expect(statement!.closing_balance_minor).to.equal(1000);
      expect(
        statement!.entries.map((e) => [e.bank_reference, e.amount_minor, e.counterparty_name, e.remittance_info]),
      ).to.deep.equal([
        ['a', -100, 'Shop & Co', null],
        ['b', -200, 'Café <Bar>', null],
        ['c', -300, null, 'x'],
        ['d', -400, 'AT&T <1>', 'a&amp;b'],
      ]);
    });

    it('reads every STMTRS of one STMTTRNRS and every BANKTRANLIST of one STMTRS', () => {
      const rs = (account: string, lists: string) =>
        `<STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>1<ACCTID>${account}</BANKACCTFROM>${lists}</STMTRS>`;
      const list = (from: string, to: string, fitid: string) =>
        `<BANKTRANLIST><DTSTART>${from}<DTEND>${to}<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>${from}<TRNAMT>1.50<FITID>${fitid}</STMTTRN></BANKTRANLIST>`;
      const text =
        '<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1' +
        rs('111', list('20260101', '20260131', 'x1')) +
        rs('222', list('20260201', '20260228', 'y1') + list('20260101', '20260131', 'y2')) +
        '</STMTTRNRS></BANKMSGSRSV1></OFX>';
      const file = parse(text, { format: 'ofx' });
      expect(
        file.statements.map((s) => [
          s.account?.account_number,
          s.start_date,
          s.end_date,
          s.entries.map((e) => e.bank_reference),
        ]),
      ).to.deep.equal([
        ['111', '2026-01-01', '2026-01-31', ['x1']],
        ['222', '2026-01-01', '2026-02-28', ['y1', 'y2']],
      ]);
      expect(file.statements[1]!.reference).to.equal('222:2026-01-01..2026-02-28');
    });

    it('reads an aggregate with stray text before its first element as the aggregate', () => {
      const text = example('ofx-1-sgml.ofx').toString('latin1').replace('<BANKTRANLIST>', '<BANKTRANLIST>stray');
      expect(parse(iconv.encode(text, 'latin1')).statements[0]!.entries).to.have.length(
        parse(example('ofx-1-sgml.ofx')).statements[0]!.entries.length,
      );
    });

    it('refuses an aggregate left open, naming it, rather than reading its entries elsewhere', () => {
      const text = example('ofx-1-sgml.ofx').toString('latin1').replace('</BANKTRANLIST>', '');
      const error = parseError(iconv.encode(text, 'latin1'));
      expect([error.format, error.location, error.reason]).to.deep.equal([
        'ofx',
        'element BANKTRANLIST',
        'element <BANKTRANLIST> is not closed',
      ]);
    });

    it('names the element of an unreadable amount', () => {
      const text = example('ofx-2-xml.ofx')
        .toString('utf8')
        .replace('<TRNAMT>1500.00</TRNAMT>', '<TRNAMT>15x0.00</TRNAMT>');
      const error = parseError(text);
      expect([error.format, error.location]).to.deep.equal([
        'ofx',
        'OFX/BANKMSGSRSV1/STMTTRNRS[1]/STMTRS/BANKTRANLIST/STMTTRN[1]/TRNAMT',
      ]);
    });
  });

  describe('MT940', () => {
    it('reads the ?NN subfield dialect (German banks) in a legacy code page, two statements in one file', () => {
      const file = parse(example('mt940-de-subfields.sta'));
      expect(file.format).to.equal('mt940');
      expect(
        file.statements.map((s) => [s.reference, s.account, s.opening_balance_minor, s.closing_balance_minor]),
      ).to.deep.equal([
        ['STARTUMS/00012/001', { iban: null, account_number: '37040044/0532013000' }, 376_320, 399_321],
        ['STARTUMS/00013/001', { iban: null, account_number: '37040044/0532013000' }, 399_321, 399_821],
      ]);
      expect(file.statements[0]!.entries).to.deep.equal([
        entry({
          booking_date: '2026-11-11',
          value_date: '2026-11-11',
          amount_minor: 25_000,
          bank_reference: 'DB-20261111-01',
          counterparty_name: 'Weiß & Söhne KG',
          counterparty_iban: 'DE27100777770209299700',
          remittance_info: 'EREF+INV-2026-044 SVWZ+Rechnung 44 Größe L',
        }),
        entry({
          booking_date: '2026-11-11',
          value_date: '2026-11-11',
          amount_minor: -1_999,
          bank_reference: 'DB-20261111-02',
          counterparty_name: 'Telefónica Germany',
          remittance_info: 'Mobilfunk November',
        }),
      ]);
    });

    it('reads the /TAG/ dialect (Dutch banks): /CNTP/, /NAME/, /IBAN/, /REMI/', () => {
      const file = parse(example('mt940-nl-tags.sta'));
      expect(file.statements[0]!.entries).to.deep.equal([
        entry({
          booking_date: '2026-11-13',
          value_date: '2026-11-13',
          amount_minor: 120_000,
          bank_reference: 'NL-0001',
          counterparty_name: 'Van der Berg B.V.',
          counterparty_iban: 'NL91ABNA0417164300',
          remittance_info: 'Invoice 2026-050',
        }),
        entry({
          booking_date: '2026-11-13',
          value_date: '2026-11-13',
          amount_minor: -7_550,
          bank_reference: 'NL-0002',
          counterparty_name: 'Café de Flore',
          counterparty_iban: 'FR7630006000011234567890189',
          remittance_info: 'Dinner clients',
        }),
      ]);
    });

    it('takes no bank reference from the customer reference (MYREF or NONREF): it names no single booking', () => {
      const text =
        ':20:X\n:25:DE89370400440532013000\n:28C:1\n:60F:C261101EUR0,00\n:61:2611011101C1,00NTRFMYREF\n:86:a\n:61:2611011101C2,00NTRFNONREF\n:86:b\n:62F:C261101EUR3,00\n';
      expect(parse(text).statements[0]!.entries.map((e) => e.bank_reference)).to.deep.equal([null, null]);
    });

    it('reads an out-of-balance statement instead of refusing it (the plan warns)', () => {
      const text = example('mt940-nl-tags.sta')
        .toString('utf8')
        .replace(':62F:C261113EUR5122,71', ':62F:C261113EUR5000,00');
      expect(parse(text).statements[0]!.closing_balance_minor).to.equal(500_000);
    });

    it('names the line of a corrupt :61: field', () => {
      const text = example('mt940-nl-tags.sta').toString('utf8').replace(':61:261113D75,50', ':61:26x113D75,50');
      const error = parseError(text);
      expect([error.format, error.location]).to.deep.equal(['mt940', 'line 8']);
    });

    it('names the statement that lacks a mandatory field', () => {
      const text = example('mt940-de-subfields.sta').toString('latin1').replace(':28C:00013/001\r\n', '');
      const error = parseError(iconv.encode(text, 'latin1'));
      expect([error.format, error.location, error.reason]).to.deep.equal([
        'mt940',
        'statement 2',
        'a statement lacks its mandatory field :28:',
      ]);
    });

    it('skips what banks write around the fields: header lines, a :940: line, control bytes, trailers', () => {
      const statement = (ref: string, amount: string) =>
        `:20:${ref}\r\n:25:NL91ABNA0417164300\r\n:28C:1\r\n:60F:C261101EUR0,00\r\n` +
        `:61:2611011101C${amount}NTRFNONREF//B${ref}\r\n:86:/NAME/Shop ${ref}\r\n:62F:C261101EUR${amount}\r\n`;
      const variants = [
        `ABNANL2A\r\n940\r\nABNANL2A\r\n${statement('A', '1,00')}-\r\nABNANL2A\r\n940\r\n${statement('B', '2,00')}-\r\n`,
        `:940:\r\n${statement('A', '1,00')}\r\n:940:\r\n${statement('B', '2,00')}`,
        `\u0001\r\n\r\n${statement('A', '1,00')}-\u0003\r\n\u0001\r\n${statement('B', '2,00')}-\u0003\r\n`,
        `0000 01INGBNL2AXXXX00001\r\n940 00\r\n${statement('A', '1,00')}:64:C261101EUR1,00\r\n-XXX\r\n${statement('B', '2,00')}`,
      ];
      for (const text of variants) {
        const file = parse(text, { format: 'mt940' });
        expect(
          file.statements.map((s) => s.entries.map((e) => [e.bank_reference, e.amount_minor, e.counterparty_name])),
          JSON.stringify(text),
        ).to.deep.equal([[['BA', 100, 'Shop A']], [['BB', 200, 'Shop B']]]);
      }
      // Line numbers still count the file's lines.
      const broken = `ABNANL2A\r\n940\r\n${statement('A', '1,00').replace(':61:2611011101C', ':61:26x1011101C')}`;
      expect(parseError(broken, { format: 'mt940' }).location).to.equal('line 7');
    });

    it('answers its own reason, never the library’s words, when the library fails inside', () => {
      // A :25: before the first :20: makes mt940js dereference a statement it never started (a TypeError).
      const error = parseError(':25:NL1\n:20:X\n:28C:1\n:60F:C261101EUR0,00\n:62F:C261101EUR0,00\n');
      expect([error.format, error.reason]).to.deep.equal([
        'mt940',
        'the file is not laid out as MT940 statements (:20:, :25:, :28C:, :60F:, :61:/:86: lines, :62F:)',
      ]);
    });
  });

  describe('CSV', () => {
    it('reads a mapped export: skipped lines, a header, DD.MM.YYYY, comma decimals, UTF-8 text', () => {
      const file = parse(example('bank-export.csv'), { format: 'csv', csv: CSV_MAPPING });
      expect({ ...file.statements[0]!, entries: undefined }).to.deep.equal({
        reference: 'csv',
        account: null,
        currency: 'EUR',
        start_date: '2026-11-14',
        end_date: '2026-11-15',
        opening_balance_minor: null,
        closing_balance_minor: null,
        entries: undefined,
      });
      expect(file.statements[0]!.entries).to.deep.equal([
        entry({
          booking_date: '2026-11-14',
          value_date: '2026-11-14',
          amount_minor: 123_456,
          counterparty_name: 'Schmidt & Partner',
          counterparty_iban: 'DE02120300000000202051',
          remittance_info: 'Rechnung 2026-061',
        }),
        entry({
          booking_date: '2026-11-14',
          value_date: '2026-11-14',
          amount_minor: -8_900,
          counterparty_name: 'Stadtwerke München',
          remittance_info: 'Strom Oktober',
        }),
        entry({
          booking_date: '2026-11-15',
          value_date: '2026-11-15',
          amount_minor: -450,
          counterparty_name: 'Getränke Kühn',
          remittance_info: 'Kaffee',
        }),
        entry({
          booking_date: '2026-11-15',
          value_date: '2026-11-15',
          amount_minor: -450,
          counterparty_name: 'Getränke Kühn',
          remittance_info: 'Kaffee',
        }),
      ]);
    });

    it('reads columns by 1-based position without a header, unsigned amounts with a direction column, in cp1252', () => {
      const text = '2026-11-20|10.00|C|Zoë\n2026-11-21|3.50|D|Café\n';
      const mapping: CsvMapping = {
        date_column: '1',
        amount_column: '2',
        direction_column: '3',
        credit_value: 'c',
        counterparty_column: '4',
        date_format: 'YYYY-MM-DD',
        decimal_separator: '.',
        delimiter: '|',
        header: false,
        skip_rows: 0,
      };
      const entries = parse(iconv.encode(text, 'cp1252'), { format: 'csv', csv: mapping, encoding: 'cp1252' })
        .statements[0]!.entries;
      expect(entries.map((e) => [e.booking_date, e.amount_minor, e.counterparty_name])).to.deep.equal([
        ['2026-11-20', 1_000, 'Zoë'],
        ['2026-11-21', -350, 'Café'],
      ]);
    });

    it('reads separate debit and credit columns with MM/DD/YYYY dates', () => {
      const text = 'Date,Debit,Credit\n11/30/2026,,12.00\n12/01/2026,7.25,\n';
      const mapping: CsvMapping = {
        date_column: 'Date',
        debit_column: 'Debit',
        credit_column: 'Credit',
        date_format: 'MM/DD/YYYY',
        decimal_separator: '.',
        delimiter: ',',
        header: true,
        skip_rows: 0,
      };
      const entries = parse(text, { format: 'csv', csv: mapping }).statements[0]!.entries;
      expect(entries.map((e) => [e.booking_date, e.amount_minor])).to.deep.equal([
        ['2026-11-30', 1_200],
        ['2026-12-01', -725],
      ]);
    });

    it('names the line of a row with an unreadable date or amount', () => {
      const text = example('bank-export.csv')
        .toString('utf8')
        .replace('15.11.2026;15.11.2026;Getränke', '31.02.2026;15.11.2026;Getränke');
      const error = parseError(text, { format: 'csv', csv: CSV_MAPPING });
      expect([error.format, error.location]).to.deep.equal(['csv', 'line 7']);
      const amount = parseError(example('bank-export.csv').toString('utf8').replace('-89,00', '-89,x0'), {
        format: 'csv',
        csv: CSV_MAPPING,
      });
      expect([amount.format, amount.location]).to.deep.equal(['csv', 'line 6']);
    });

    it('names the line where the CSV itself breaks', () => {
      const error = parseError('a;b\n1;"x\n', {
        format: 'csv',
        csv: {
          ...CSV_MAPPING,
          skip_rows: 0,
          date_column: 'a',
          amount_column: 'b',
          currency_column: undefined,
          value_date_column: undefined,
          counterparty_column: undefined,
          iban_column: undefined,
          remittance_column: undefined,
        },
      });
      expect([error.format, error.location]).to.deep.equal(['csv', 'line 2']);
    });

    it('refuses a file that is not valid UTF-8 when no encoding is named', () => {
      const error = parseError(iconv.encode(example('bank-export.csv').toString('utf8'), 'latin1'), {
        format: 'csv',
        csv: CSV_MAPPING,
      });
      expect([error.format, error.location]).to.deep.equal(['csv', 'encoding']);
    });
  });

  describe('format sniffing', () => {
    it('recognises every sample by its content', () => {
      const seen = [
        'camt053-001-02.xml',
        'camt053-001-08.xml',
        'ofx-1-sgml.ofx',
        'ofx-2-xml.ofx',
        'mt940-de-subfields.sta',
        'mt940-nl-tags.sta',
        'bank-export.csv',
      ].map((name) => sniffFormat(example(name), name.endsWith('.csv')));
      expect(seen).to.deep.equal(['camt053', 'camt053', 'ofx', 'ofx', 'mt940', 'mt940', 'csv']);
    });

    it('refuses content it cannot recognise without a CSV mapping', () => {
      const error = parseError('hello');
      expect([error.format, error.location]).to.deep.equal(['auto', 'line 1']);
    });
  });
});
