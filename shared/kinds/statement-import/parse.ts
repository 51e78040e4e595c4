// One entry point for every format: sniff (when asked for `auto`), decode, parse.
import { parseCamt053 } from './camt053.js';
import { parseCsv, type CsvMapping } from './csv.js';
import { decodeStatement } from './encoding.js';
import { StatementParseError, StatementRefusal, type ParsedStatementFile, type StatementFormat } from './model.js';
import { parseMt940 } from './mt940.js';
import { parseOfx } from './ofx.js';
import { checkParsedFile } from './parsed-checks.js';
import { checkXmlShape, XML_LIMITS } from './xml-limits.js';

export interface ParseOptions {
  format: StatementFormat | 'auto';
  /** `?encoding=`: overrides what the file declares. */
  encoding: string | null;
  /** Required for CSV. */
  csv: CsvMapping | null;
  /** A CSV's currency when no currency column is mapped. */
  account_currency: string;
}

/** The format of a file from its first bytes, or null when none is recognised. */
export function sniffFormat(bytes: Uint8Array, csvMapped: boolean): StatementFormat | null {
  const head = Buffer.from(bytes.subarray(0, 4096))
    .toString('latin1')
    .replace(/^\uFEFF|^ï»¿/, '')
    .trimStart();
  if (/^OFXHEADER\s*:/.test(head) || /<\?OFX\b/.test(head) || /^<OFX>/i.test(head)) return 'ofx';
  if (head.startsWith('<')) return /camt\.053|BkToCstmrStmt/.test(head) ? 'camt053' : null;
  if (/^(\{1:|:20:)/m.test(head) && /^:25:/m.test(head)) return 'mt940';
  return csvMapped ? 'csv' : null;
}

/** Reads a statement file; throws StatementParseError with the format tried and where. */
export function parseStatementFile(bytes: Uint8Array, options: ParseOptions): ParsedStatementFile {
  const format = options.format === 'auto' ? sniffFormat(bytes, options.csv !== null) : options.format;
  if (format === null)
    throw new StatementParseError(
      'auto',
      'line 1',
      'not a CAMT.053, OFX or MT940 file (a CSV needs ?format=csv or its column mapping)',
    );
  const text = decodeStatement(bytes, format, options.encoding);
  let file: ParsedStatementFile;
  try {
    file = readAs(format, text, options);
  } catch (error) {
    if (error instanceof StatementParseError || error instanceof StatementRefusal) throw error;
    // why: a library failing on a file (hostile or just broken) is the file's fault, answered on the first
    // attempt; its own message is the library's internals, not a reason a user can act on.
    throw new StatementParseError(format, 'file', libraryFailure(error));
  }
  checkParsedFile(file);
  return file;
}

function libraryFailure(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'the file is nested too deeply to read';
  return "the file's structure could not be read";
}

function readAs(format: StatementFormat, text: string, options: ParseOptions): ParsedStatementFile {
  switch (format) {
    case 'camt053':
      checkXmlShape(text, format);
      return parseCamt053(text);
    case 'ofx':
      // OFX 1.x leaves leaf elements unclosed, so nesting cannot be counted before parsing.
      checkXmlShape(text, format, { ...XML_LIMITS, max_depth: null });
      return parseOfx(text);
    case 'mt940':
      return parseMt940(text);
    case 'csv':
      if (options.csv === null)
        throw new StatementParseError(
          'csv',
          'query',
          'a CSV needs a column mapping (date_column and the amount columns)',
        );
      return parseCsv(text, options.csv, options.account_currency);
  }
}
