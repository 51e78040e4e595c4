// Decimal text → integer minor units, exactly (no floating point on the way).
import { currencyExponent } from '../../domain/currency.js';
import { StatementParseError, StatementRefusal, type StatementFormat } from './model.js';

/**
 * A decimal amount as minor units of `currency`. `text` may carry a sign
 * (leading `+`/`-` or a trailing `-`) and, with `groupSeparators`, thousands
 * separators; more fraction digits than the exponent allows are refused unless
 * they are zeros.
 */
export function decimalToMinor(
  text: string,
  currency: string,
  where: { format: StatementFormat; location: string },
  decimalSeparator: '.' | ',' = '.',
): number {
  let t = text.trim().replace(/\s/g, '');
  let negative = false;
  if (t.endsWith('-')) {
    negative = true;
    t = t.slice(0, -1);
  }
  if (t.startsWith('-')) {
    negative = !negative;
    t = t.slice(1);
  } else if (t.startsWith('+')) t = t.slice(1);
  const group = decimalSeparator === '.' ? /[,']/g : /[.']/g;
  t = t.replace(group, '');
  const parts = t.split(decimalSeparator);
  const [whole = '', fraction = ''] = parts;
  if (parts.length > 2 || !/^\d*$/.test(whole) || !/^\d*$/.test(fraction) || whole + fraction === '') {
    throw new StatementParseError(where.format, where.location, `not an amount: "${text}"`);
  }
  const exponent = currencyExponent(currency);
  const extra = fraction.slice(exponent);
  if (/[^0]/.test(extra))
    throw new StatementParseError(where.format, where.location, `more decimals than ${currency} has: "${text}"`);
  const digits = `${whole}${fraction.slice(0, exponent).padEnd(exponent, '0')}`.replace(/^0+(?=\d)/, '');
  return safeMinor(negative ? -BigInt(digits) : BigInt(digits), where.location);
}

/** `value` as a number when it is within ±(2^53 − 1), else `amount_out_of_range` naming where it was read. */
export function safeMinor(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new StatementRefusal('amount_out_of_range', {
      field,
      value_minor: value.toString(),
      max_minor: Number.MAX_SAFE_INTEGER,
    });
  return value === 0n ? 0 : Number(value);
}
