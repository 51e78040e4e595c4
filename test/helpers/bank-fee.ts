// The bank fee booking the journal-entry tests stage (docs/guide/book-and-match.md):
// 3.50 EUR of bank fees (6855) against trade payables (1600) on 2026-03-02.
// `extra` adds fields (the transaction it books, a receipt) or overrides them,
// a refusal test's bad ones too (the type is the valid request's).
import type { JournalEntryStageInput } from '../../shared/kinds/journal-entry/schema.js';

export function bankFeeEntry(counterpartyId: string, extra: Record<string, unknown> = {}): JournalEntryStageInput {
  return {
    entry_date: '2026-03-02',
    description: 'Bank fee March',
    reference: 'FEE-2026-03',
    counterparty_id: counterpartyId,
    currency: 'EUR',
    lines: [
      { account: '6855', debit_minor: 350, credit_minor: 0 },
      { account: '1600', debit_minor: 0, credit_minor: 350 },
    ],
    ...extra,
  };
}
