// Bank CSV exports, read with csv-parse under a column mapping the caller
// gives (docs/guide/statement-import.md "CSV"): columns named by their header text
// or by 1-based position. A CSV names no account and no balances: it is one
// statement in the bank account's currency unless a currency column says
// otherwise.
import { parse } from 'csv-parse/sync';
import { decimalToMinor } from './money.js';
import { StatementParseError, type ParsedStatementFile, type StatementEntry } from './model.js';

export interface CsvMapping {
  date_column: string;
  /** Signed amount; or unsigned with `direction_column` + `credit_value`. */
  amount_column?: string;
  direction_column?: string;
  credit_value?: string;
  debit_column?: string;
  credit_column?: string;
  /** Tokens DD, MM, YYYY (or YY); anything else is a literal separator. */
  date_format: string;
  decimal_separator: '.' | ',';
  delimiter: string;
  header: boolean;
  /** Physical lines before the header (or the first row), blank ones included. */
  skip_rows: number;
  value_date_column?: string;
  currency_column?: string;
  reference_column?: string;
  counterparty_column?: string;
  iban_column?: string;
  remittance_column?: string;
}

export const DEFAULT_CSV_MAPPING = {
  date_format: 'YYYY-MM-DD',
  decimal_separator: '.',
  delimiter: ',',
  header: true,
  skip_rows: 0,
} as const;

/**
 * What is wrong with a mapping as a whole, beyond each field's own schema (the
 * amount columns' three forms, a date format without its tokens), or null:
 * checked when a mapping is saved (docs/guide/statement-import.md "Saved CSV
 * mapping"); an import answers the same problems as `unreadable_statement`.
 */
export function csvMappingProblem(mapping: CsvMapping): { field: string; reason: string } | null {
  // A signed amount column and debit/credit columns are two forms of the amount: which one is meant is unclear.
  const split =
    mapping.debit_column !== undefined ? 'debit_column' : mapping.credit_column !== undefined ? 'credit_column' : null;
  if (mapping.amount_column !== undefined && split !== null)
    return { field: split, reason: `give amount_column or debit_column + credit_column, not both` };
  // A quote or a line break cannot separate fields; the decimal separator would cut every amount in two.
  if (mapping.delimiter === '"' || mapping.delimiter === '\n' || mapping.delimiter === '\r')
    return { field: 'delimiter', reason: 'a delimiter cannot be a quote or a line break' };
  if (mapping.delimiter === mapping.decimal_separator)
    return {
      field: 'delimiter',
      reason: `the delimiter cannot be the decimal separator "${mapping.decimal_separator}"`,
    };
  const hasSigned =
    mapping.amount_column !== undefined && mapping.direction_column === undefined && mapping.credit_value === undefined;
  const hasDirection =
    mapping.amount_column !== undefined && mapping.direction_column !== undefined && mapping.credit_value !== undefined;
  const hasSplit =
    mapping.debit_column !== undefined && mapping.credit_column !== undefined && mapping.amount_column === undefined;
  if (!hasSigned && !hasDirection && !hasSplit) {
    return {
      field: 'amount_column',
      reason: 'give amount_column, or amount_column + direction_column + credit_value, or debit_column + credit_column',
    };
  }
  try {
    dateReader(mapping.date_format);
  } catch (err) {
    if (err instanceof StatementParseError) return { field: 'date_format', reason: err.reason };
    throw err;
  }
  return null;
}

function fail(location: string, reason: string): never {
  throw new StatementParseError('csv', location, reason);
}

/** A date parser for a `DD.MM.YYYY`-style format. */
export function dateReader(format: string): (text: string) => string | null {
  const order: ('Y' | 'y' | 'M' | 'D')[] = [];
  const source = format.replace(/YYYY|YY|MM|DD|[.*+?^${}()|[\]\\]/g, (token) => {
    if (token === 'YYYY') {
      order.push('Y');
      return '(\\d{4})';
    }
    if (token === 'YY') {
      order.push('y');
      return '(\\d{2})';
    }
    if (token === 'MM') {
      order.push('M');
      return '(\\d{1,2})';
    }
    if (token === 'DD') {
      order.push('D');
      return '(\\d{1,2})';
    }
    return `\\${token}`;
  });
  if (!order.includes('D') || !order.includes('M') || !(order.includes('Y') || order.includes('y')))
    fail('query date_format', `"${format}" needs DD, MM and YYYY`);
  const pattern = new RegExp(`^${source}$`);
  return (text) => {
    const m = pattern.exec(text.trim());
    if (!m) return null;
    let year = 0;
    let month = 0;
    let dayOfMonth = 0;
    order.forEach((kind, i) => {
      const n = Number(m[i + 1]);
      if (kind === 'Y') year = n;
      else if (kind === 'y') year = 2000 + n;
      else if (kind === 'M') month = n;
      else dayOfMonth = n;
    });
    const date = new Date(Date.UTC(year, month - 1, dayOfMonth));
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== dayOfMonth)
      return null;
    return date.toISOString().slice(0, 10);
  };
}

export function parseCsv(text: string, mapping: CsvMapping, accountCurrency: string): ParsedStatementFile {
  const problem = csvMappingProblem(mapping);
  if (problem !== null) fail('query', `${problem.field}: ${problem.reason}`);
  const hasSigned = mapping.amount_column !== undefined && mapping.direction_column === undefined;
  const hasDirection =
    mapping.amount_column !== undefined && mapping.direction_column !== undefined && mapping.credit_value !== undefined;
  const hasSplit =
    mapping.debit_column !== undefined && mapping.credit_column !== undefined && mapping.amount_column === undefined;
  if (!hasSigned && !hasDirection && !hasSplit) {
    fail(
      'query',
      'give amount_column, or amount_column + direction_column + credit_value, or debit_column + credit_column',
    );
  }
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      delimiter: mapping.delimiter,
      from_line: mapping.skip_rows + 1,
      info: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
    }) as unknown as typeof rows;
  } catch (error) {
    const lines = (error as { lines?: unknown }).lines;
    fail(
      typeof lines === 'number' ? `line ${lines}` : 'line 1',
      error instanceof Error ? error.message : String(error),
    );
  }
  const header = mapping.header ? (rows.shift()?.record ?? []) : [];
  const column = (name: string | undefined, param: string): number | null => {
    if (name === undefined) return null;
    const byName = header.indexOf(name);
    if (byName >= 0) return byName;
    if (/^\d+$/.test(name) && Number(name) >= 1) return Number(name) - 1;
    return fail(
      `query ${param}`,
      `no column "${name}"${mapping.header ? ` in the header (${header.join(', ')})` : ''}`,
    );
  };
  const c = {
    date: column(mapping.date_column, 'date_column'),
    amount: column(mapping.amount_column, 'amount_column'),
    direction: column(mapping.direction_column, 'direction_column'),
    debit: column(mapping.debit_column, 'debit_column'),
    credit: column(mapping.credit_column, 'credit_column'),
    value: column(mapping.value_date_column, 'value_date_column'),
    currency: column(mapping.currency_column, 'currency_column'),
    reference: column(mapping.reference_column, 'reference_column'),
    counterparty: column(mapping.counterparty_column, 'counterparty_column'),
    iban: column(mapping.iban_column, 'iban_column'),
    remittance: column(mapping.remittance_column, 'remittance_column'),
  };
  const readDate = dateReader(mapping.date_format);
  const entries: StatementEntry[] = rows.map(({ record, info }) => {
    const location = `line ${info.lines}`;
    const cell = (index: number | null): string | null => {
      if (index === null) return null;
      const v = record[index];
      if (v === undefined) fail(location, `the row has no column ${index + 1}`);
      return v === '' ? null : v;
    };
    const currency = cell(c.currency)?.toUpperCase() ?? accountCurrency;
    const money = (t: string) => decimalToMinor(t, currency, { format: 'csv', location }, mapping.decimal_separator);
    let amount: number;
    if (hasSplit) {
      const debit = cell(c.debit);
      const credit = cell(c.credit);
      if (debit === null && credit === null) fail(location, 'neither a debit nor a credit amount');
      amount = (credit === null ? 0 : Math.abs(money(credit))) - (debit === null ? 0 : Math.abs(money(debit)));
    } else {
      const raw = cell(c.amount);
      if (raw === null) fail(location, 'no amount');
      amount = money(raw);
      if (hasDirection) {
        const credit = (cell(c.direction) ?? '').trim().toLowerCase() === mapping.credit_value!.trim().toLowerCase();
        amount = credit ? Math.abs(amount) : -Math.abs(amount);
      }
    }
    const dateText = cell(c.date);
    const booking = dateText === null ? null : readDate(dateText);
    if (booking === null) fail(location, `not a ${mapping.date_format} date: "${dateText ?? ''}"`);
    const valueText = cell(c.value);
    return {
      booking_date: booking,
      value_date: valueText === null ? null : readDate(valueText),
      amount_minor: amount,
      currency,
      bank_reference: cell(c.reference),
      counterparty_name: cell(c.counterparty),
      counterparty_iban: cell(c.iban)?.replace(/\s/g, '') ?? null,
      remittance_info: cell(c.remittance),
      details: [],
      pending: false,
    };
  });
  const days = entries.map((e) => e.booking_date).sort();
  return {
    format: 'csv',
    statements: [
      {
        reference: 'csv',
        account: null,
        currency: accountCurrency,
        start_date: days[0] ?? null,
        end_date: days[days.length - 1] ?? null,
        opening_balance_minor: null,
        closing_balance_minor: null,
        entries,
      },
    ],
  };
}
