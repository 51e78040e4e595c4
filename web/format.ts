// Money and time for people. Amounts are integer minor units with an ISO
// 4217 currency (docs/reference/http-api.md §1): formatted by string, never by floating
// point, with the currency's own number of decimals.

/** Decimals of a currency's minor unit (EUR 2, JPY 0, KWD 3); 2 when the browser does not know it. */
function decimals(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

export function money(minor: number, currency: string): string {
  const d = decimals(currency);
  const digits = Math.abs(minor)
    .toString()
    .padStart(d + 1, '0');
  const whole = digits.slice(0, digits.length - d).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = d > 0 ? `.${digits.slice(digits.length - d)}` : '';
  return `${minor < 0 ? '−' : ''}${whole}${frac} ${currency}`;
}

/** An ISO time as `2026-03-07 10:00 UTC`: the API's times are UTC, so is the page. */
export function when(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}
