// The one statement model every format is read into (docs/guide/statement-import.md).
// Money is integer minor units in the currency's exponent; dates are ISO days.
import type { IsoDate } from '../../domain/books.js';

export const STATEMENT_FORMATS = ['camt053', 'ofx', 'mt940', 'csv'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** One transaction of a batch entry. */
export interface EntryDetail {
  amount_minor: number | null;
  counterparty_name: string | null;
  remittance_info: string | null;
  end_to_end_id: string | null;
}

/** One booked (or pending) entry of a statement: CAMT `Ntry`, OFX `STMTTRN`, MT940 `:61:`, a CSV row. */
export interface StatementEntry {
  booking_date: IsoDate;
  value_date: IsoDate | null;
  /** Signed, + is money in, in `currency`'s minor units. */
  amount_minor: number;
  currency: string;
  bank_reference: string | null;
  counterparty_name: string | null;
  counterparty_iban: string | null;
  remittance_info: string | null;
  details: EntryDetail[];
  /** Not yet booked (CAMT `Sts` PDNG, OFX pending list): left out of the plan. */
  pending: boolean;
}

export interface StatementAccount {
  iban: string | null;
  /** Any other identification the file gives (OFX `ACCTID`, MT940 `:25:`, CAMT `Othr/Id`). */
  account_number: string | null;
}

export interface ParsedStatement {
  reference: string;
  /** null when the format names no account (CSV). */
  account: StatementAccount | null;
  currency: string;
  start_date: IsoDate | null;
  end_date: IsoDate | null;
  opening_balance_minor: number | null;
  closing_balance_minor: number | null;
  entries: StatementEntry[];
}

export interface ParsedStatementFile {
  format: StatementFormat;
  statements: ParsedStatement[];
}

/** Why a file could not be read: the format tried and where (line or element). */
export class StatementParseError extends Error {
  constructor(
    readonly format: StatementFormat | 'auto',
    readonly location: string,
    readonly reason: string,
  ) {
    super(`${format}: ${reason} (at ${location})`);
    this.name = 'StatementParseError';
  }
}

/**
 * A file that was read but is refused for what it says, with its own code
 * (docs/guide/statement-import.md "Unreadable files"): `amount_out_of_range`
 * for an amount beyond ±(2^53 − 1) minor units, `unsupported_statement_version`
 * for a CAMT version the reader does not know.
 */
export class StatementRefusal extends Error {
  constructor(
    readonly code: 'amount_out_of_range' | 'unsupported_statement_version',
    readonly details: Record<string, unknown>,
  ) {
    super(`${code}: ${JSON.stringify(details)}`);
    this.name = 'StatementRefusal';
  }
}
