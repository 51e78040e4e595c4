// Integer minor units as a readable amount with its currency: 56000 EUR →
// "560.00 EUR", 1500 JPY → "1,500 JPY". The number of decimals comes from
// the currency (ISO 4217 via Intl); arithmetic stays in integers.

function decimalsOf(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}

const group = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** `signed`: print a + before positive amounts (bank transactions, changes). */
export function formatMoney(
  minor: number,
  currency: string | null | undefined,
  options: { signed?: boolean } = {},
): string {
  if (!Number.isSafeInteger(minor)) return String(minor);
  const decimals = currency ? decimalsOf(currency) : null;
  const sign = minor < 0 ? '-' : options.signed && minor > 0 ? '+' : '';
  const digits = String(Math.abs(minor));
  if (decimals === null) return `${sign}${group(digits)} ${currency ? `${currency} minor units` : 'minor units'}`;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = decimals > 0 ? `.${padded.slice(padded.length - decimals)}` : '';
  return `${sign}${group(whole)}${fraction} ${currency}`;
}
