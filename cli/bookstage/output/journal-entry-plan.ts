// A journal entry's plan as a bookkeeper reads it (docs/reference/http-api.md §13.2, journal entry):
// the entry with its lines (account code and name, debit, credit) and totals, the bank transaction it
// books and the document it attaches.
import type { JournalEntryPlan } from '../../../shared/kinds/journal-entry/plan.js';
import { formatMoney } from './money.js';
import type { Style } from './style.js';
import { table } from './table.js';

export function journalEntryPlan(style: Style, plan: JournalEntryPlan): string {
  const e = plan.entry;
  const money = (m: number): string => (m ? formatMoney(m, e.currency) : '');
  let out = `Books ledger entry ${style.bold(plan.ledger_entry_id)} on ${e.entry_date}: ${e.description}, ref ${e.reference}, counterparty ${e.counterparty_id}, ${e.currency}${plan.note ? ` (note: ${plan.note})` : ''}\n`;
  out += table(
    style,
    ['account', 'name', 'debit', 'credit'],
    [
      ...(e.lines ?? []).map((l) => [l.account, l.account_name ?? '', money(l.debit_minor), money(l.credit_minor)]),
      ['total', '', formatMoney(plan.debit_total_minor, e.currency), formatMoney(plan.credit_total_minor, e.currency)],
    ],
  );
  const link = plan.bank_link;
  if (link)
    out += `Books bank transaction ${link.bank_transaction_id} (${formatMoney(link.transaction_amount_minor, e.currency, { signed: true })}): links it for ${formatMoney(link.amount_minor, e.currency)}\n`;
  if (plan.document_id) out += `Attaches inbox document ${plan.document_id} (marked booked)\n`;
  return out;
}
