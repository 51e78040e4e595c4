// Inboxes for the duplicate tests: one duplicate pair to resolve, and a
// deterministic inbox with many duplicate groups of every kind, for tests
// that compare the materialized overview with a fresh grouping.
import { createHash } from 'node:crypto';
import type { Books } from './books.js';

/** The id the overview gives the group of these documents (docs/reference/http-api.md: sha256 of the sorted ids, joined with \n). */
export const groupId = (...ids: string[]): string =>
  `grp_${createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16)}`;

type Extracted = NonNullable<Parameters<Books['doc']>[0]>['extracted'];

export const PAIR_INVOICE: Extracted = {
  vendor_name: 'Acme GmbH',
  invoice_number: 'RE-7',
  invoice_date: '2026-02-20',
  total_minor: 11_900,
  currency: 'EUR',
};

/** Two documents of `books` with the same extracted invoice, `a` received first: one duplicate group by invoice number. */
export function duplicatePair(
  books: Books,
  invoice: Extracted = PAIR_INVOICE,
): { a: string; b: string; group: string } {
  const a = books.doc({ received_at: '2026-03-01T09:00:00.000Z', extracted: invoice });
  const b = books.doc({ received_at: '2026-03-02T09:00:00.000Z', extracted: invoice });
  return { a, b, group: groupId(a, b) };
}

/** `n` documents into `books`: about a third of them duplicates (same file, same invoice number, same amount/date/vendor). */
export function duplicateRichInbox(books: Books, n: number, seed = 1): string[] {
  let state = seed >>> 0;
  const rand = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const ids: string[] = [];
  const made: Array<{ sha: string; vendor: string; invoice: string; total: number; date: string }> = [];
  for (let i = 0; i < n; i++) {
    const base = made.length > 0 ? made[Math.floor(rand() * made.length)]! : null;
    const r = rand();
    let fields = {
      sha: createHash('sha256').update(`${books.uid}-${seed}-${i}`).digest('hex'),
      vendor: `Vendor ${Math.floor(rand() * 50)} GmbH`,
      invoice: `INV-${seed}-${i}`,
      total: 1000 + Math.floor(rand() * 90_000),
      date: `2026-01-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`,
    };
    if (base && r < 0.12) fields = { ...fields, sha: base.sha };
    else if (base && r < 0.24)
      fields = { ...fields, vendor: base.vendor.toUpperCase(), invoice: ` ${base.invoice.toLowerCase()}` };
    else if (base && r < 0.34) fields = { ...fields, vendor: base.vendor, total: base.total, date: base.date };
    made.push(fields);
    const s = rand();
    ids.push(
      books.doc({
        received_at: new Date(Date.UTC(2026, 1, 1) + Math.floor(rand() * 20 * 86_400) * 1000).toISOString(),
        status: s < 0.75 ? 'open' : s < 0.95 ? 'booked' : 'archived',
        file: { sha256: fields.sha, name: `scan-${i}.pdf`, size: 1000, mime: 'application/pdf' },
        extracted: {
          vendor_name: fields.vendor,
          invoice_number: fields.invoice,
          total_minor: fields.total,
          currency: 'EUR',
          invoice_date: fields.date,
        },
      }),
    );
  }
  return ids;
}
