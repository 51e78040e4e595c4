// An inbox document as a reviewer recognises it — file, vendor, invoice,
// total — in the same words on the duplicate overview and on a staged
// duplicate resolution (docs/guide/review-page.md "Views").
import { money } from './format.js';
import type { DocumentContext } from '../shared/contract/staged-operation.js';

type Extracted = DocumentContext['extracted'];

function size(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${bytes} B`;
}

/** File, Vendor, Invoice and Total, each '—' when unknown. */
export function documentFacts(
  file: DocumentContext['file'] | null | undefined,
  extracted: Extracted | null | undefined,
): [string, string][] {
  const x: Extracted = extracted ?? {};
  return [
    ['File', file ? `${file.name} (${file.mime}, ${size(file.size)})` : '—'],
    ['Vendor', [x.vendor_name, x.vendor_tax_id ? `tax id ${x.vendor_tax_id}` : ''].filter(Boolean).join(', ') || '—'],
    ['Invoice', [x.invoice_number, x.invoice_date ? `dated ${x.invoice_date}` : ''].filter(Boolean).join(', ') || '—'],
    ['Total', x.total_minor !== undefined ? money(x.total_minor, x.currency ?? '') : '—'],
  ];
}
