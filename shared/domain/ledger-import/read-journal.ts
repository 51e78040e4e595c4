// A plain-text accounting file as hledger or beancount read it, before it is
// mapped to books (docs/guide/ledger-exchange.md "Import"): the tools parse
// the syntax, this is what they answer, with the line each record starts on.
// Amounts stay decimal mantissa and places, never a float.
import { currencyExponent } from '../currency.js';
import { isCalendarDate } from '../dates.js';

/** Every reason an import refuses a file; each is documented in docs/guide/ledger-exchange.md "Refusals". */
export const LEDGER_REFUSALS = [
  'ledger_file_too_large',
  'ledger_syntax',
  'ledger_include',
  'ledger_price',
  'ledger_lot',
  'ledger_virtual_posting',
  'ledger_two_currencies',
  'ledger_unbalanced',
  'ledger_assertion',
  'ledger_account_not_opened',
  'ledger_amount_precision',
  'ledger_amount_range',
  'ledger_currency',
  'ledger_date',
  'ledger_account_type',
  'ledger_bank_postings',
  'ledger_books_invalid',
] as const;
export type LedgerRefusalCode = (typeof LEDGER_REFUSALS)[number];

export interface LedgerRefusal {
  /** 1-based line of the file; 0 for the file as a whole. */
  line: number;
  code: LedgerRefusalCode;
  message: string;
}

/** A decimal as written: `mantissa` × 10^-`places`, the mantissa a string of an integer. */
export interface ReadAmount {
  currency: string;
  mantissa: string;
  places: number;
}

export interface ReadPosting {
  account: string;
  amount: ReadAmount;
  meta: Record<string, string>;
  /** A balance assertion on this posting (hledger `= X`): the account's balance after it. */
  assertion?: ReadAmount;
}

export interface ReadTransaction {
  line: number;
  date: string;
  payee: string;
  narration: string;
  meta: Record<string, string>;
  postings: ReadPosting[];
}

export interface ReadAccount {
  name: string;
  line: number;
  meta: Record<string, string>;
}

/** A balance asserted at the end of `date` (beancount's, which holds at the start of a day, moved to the day before). */
export interface ReadBalance {
  line: number;
  date: string;
  account: string;
  amount: ReadAmount;
}

export interface ReadJournal {
  accounts: ReadAccount[];
  transactions: ReadTransaction[];
  balances: ReadBalance[];
}

/** The books hold four-digit years, with a day before (an opening balance) and a day after (beancount's assertion). */
export const FIRST_DATE = '1000-01-02';
export const LAST_DATE = '9999-12-30';

export function dateRefusal(date: string, line: number): LedgerRefusal | null {
  if (isCalendarDate(date) && date >= FIRST_DATE && date <= LAST_DATE) return null;
  return {
    line,
    code: 'ledger_date',
    message: `the date ${date} is outside what the books hold (${FIRST_DATE} to ${LAST_DATE})`,
  };
}

/**
 * The amount in its currency's minor units, exactly; a refusal when it has
 * more (non-zero) decimals than the currency, is past the safe integer range
 * or is not in an ISO 4217 currency code.
 */
export function minorOf(amount: ReadAmount, line: number): number | LedgerRefusal {
  const text = `${amount.mantissa}${amount.places > 0 ? `e-${amount.places}` : ''} ${amount.currency}`;
  if (!/^[A-Z]{3}$/.test(amount.currency))
    return {
      line,
      code: 'ledger_currency',
      message: `the commodity ${JSON.stringify(amount.currency)} is not a three-letter currency code`,
    };
  const exponent = currencyExponent(amount.currency);
  let m = BigInt(amount.mantissa);
  let places = amount.places;
  while (places > exponent && m % 10n === 0n) {
    m /= 10n;
    places -= 1;
  }
  if (places > exponent)
    return {
      line,
      code: 'ledger_amount_precision',
      message: `${decimalText(amount)} ${amount.currency} has more decimals than ${amount.currency}'s ${exponent}`,
    };
  const minor = m * 10n ** BigInt(exponent - places);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < -BigInt(Number.MAX_SAFE_INTEGER))
    return { line, code: 'ledger_amount_range', message: `${text} is beyond the amounts the books hold` };
  return Number(minor);
}

/** The amount as a decimal, for messages. */
export function decimalText(amount: ReadAmount): string {
  const negative = amount.mantissa.startsWith('-');
  const digits = (negative ? amount.mantissa.slice(1) : amount.mantissa).padStart(amount.places + 1, '0');
  const whole = amount.places > 0 ? `${digits.slice(0, -amount.places)}.${digits.slice(-amount.places)}` : digits;
  return `${negative ? '-' : ''}${whole}`;
}
