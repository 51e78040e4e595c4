// An inbox document as the duplicate rules compare it (docs/design/duplicate-overview.md):
// each field the rules read, normalised once, and missing when the document
// does not say it, so that a missing field never ties two documents together.
import { isCalendarDate } from './dates.js';
import type { InboxDocument, InboxDocumentStatus } from './books.js';
import { normaliseInvoiceNumber } from './invoice-number.js';
import { vendorKey } from './vendor-key.js';

export type GroupedDocumentStatus = Exclude<InboxDocumentStatus, 'archived'>;

export interface Candidate {
  doc: InboxDocument;
  status: GroupedDocumentStatus;
  receivedMs: number;
  sha256: string | null;
  vendor: string | null;
  invoice: string | null;
  currency: string | null;
  total: number | null;
  /** Invoice date as days since 1970-01-01. */
  day: number | null;
}

export function toCandidate(doc: InboxDocument, status: GroupedDocumentStatus): Candidate {
  const extracted = doc.extracted ?? {};
  const sha = doc.file?.sha256;
  const currency = extracted.currency;
  const total = extracted.total_minor;
  return {
    doc,
    status,
    receivedMs: instant(doc.received_at),
    sha256: typeof sha === 'string' && sha.trim() !== '' ? sha.trim().toLowerCase() : null,
    vendor: vendorKey(extracted),
    invoice: normaliseInvoiceNumber(extracted.invoice_number),
    currency: typeof currency === 'string' && currency.trim() !== '' ? currency.trim().toUpperCase() : null,
    total: typeof total === 'number' && Number.isFinite(total) ? total + 0 : null,
    day: calendarDay(extracted.invoice_date),
  };
}

function calendarDay(date: string | null | undefined): number | null {
  if (typeof date !== 'string' || !isCalendarDate(date)) return null;
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000;
}

const INSTANT_RE = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Epoch milliseconds of an ISO 8601 timestamp (with `Z` or an offset; a bare
 * date is UTC midnight), so `…00Z` and `…00.000Z` are the same instant.
 * Anything else sorts as the latest possible time (then by id), the same on
 * every machine.
 */
export function instant(value: string): number {
  const m = typeof value === 'string' ? INSTANT_RE.exec(value) : null;
  if (!m || !isCalendarDate(m[1] as string)) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}
