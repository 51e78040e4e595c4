import type { IsoDate } from './books.js';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date `YYYY-MM-DD` (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

/** The UTC calendar date of an instant. */
export function utcDate(at: Date | string): IsoDate {
  return new Date(at).toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** The calendar day before `date` (UTC). */
export function dayBefore(date: IsoDate): IsoDate {
  return utcDate(new Date(Date.parse(`${date}T00:00:00Z`) - DAY_MS));
}

/** The calendar day after `date` (UTC). */
export function dayAfter(date: IsoDate): IsoDate {
  return utcDate(new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS));
}
