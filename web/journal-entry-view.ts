// A journal entry as the reviewer checks it (docs/guide/review-page.md "Views"): the new entry's
// lines with their accounts' names and the debit and credit totals, the bank transaction it books
// (and the link apply creates) and the receipt it attaches, from the plan and its context.
import { facts, h, table } from './dom.js';
import { money } from './format.js';
import { documentFacts } from './document-facts.js';
import type {
  JournalEntryPlan,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

const num = (text: string) => h('span', { class: 'num' }, text);

export function journalEntryView(op: StagedOperation): HTMLElement {
  const plan = op.plan as JournalEntryPlan;
  const e = plan.entry;
  const cur = e.currency;
  const ctx = op.context ?? {};
  const link = plan.bank_link;
  const txn = link ? (ctx.bank_transactions ?? []).find((t) => t.id === link.bank_transaction_id) : undefined;
  const doc = plan.document_id ? (ctx.inbox_documents ?? []).find((d) => d.id === plan.document_id) : undefined;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Journal entry: what it books'),
    facts([
      ['Entry (new)', plan.ledger_entry_id],
      ['Date', e.entry_date],
      ['Description', e.description],
      ['Reference', e.reference],
      ['Counterparty', e.counterparty_id],
      ['Note', plan.note ?? '—'],
    ]),
    table(
      `Lines of ${plan.ledger_entry_id}`,
      ['Account', 'Name', 'Debit', 'Credit'],
      [
        ...e.lines.map((l) => [
          l.account,
          l.account_name ?? '—',
          num(l.debit_minor ? money(l.debit_minor, cur) : ''),
          num(l.credit_minor ? money(l.credit_minor, cur) : ''),
        ]),
        {
          cells: [
            h('strong', {}, 'Total'),
            '',
            num(money(plan.debit_total_minor, cur)),
            num(money(plan.credit_total_minor, cur)),
          ],
          attrs: { 'data-testid': 'entry-totals' },
        },
      ],
    ),
    link
      ? h(
          'div',
          {},
          h('h3', {}, 'Bank transaction booked'),
          facts([
            ['Transaction', link.bank_transaction_id],
            [
              'Bank account',
              ctx.bank_account ? `${ctx.bank_account.name} (${link.bank_account_id})` : link.bank_account_id,
            ],
            ['Booked', txn?.booking_date ?? '—'],
            ['Amount', money(link.transaction_amount_minor, txn?.currency ?? cur)],
            ['Counterparty', txn?.counterparty_name || '—'],
            ['Remittance', txn?.remittance_info || '—'],
            ['Linked before', money(link.linked_before_minor, txn?.currency ?? cur)],
            ['Link apply creates', money(link.amount_minor, txn?.currency ?? cur)],
          ]),
        )
      : h('p', {}, 'No bank transaction: the entry stays open until a match links one.'),
    plan.document_id
      ? h(
          'div',
          {},
          h('h3', {}, 'Receipt attached'),
          facts([['Document', plan.document_id], ...documentFacts(doc?.file, doc?.extracted)]),
        )
      : h('p', {}, 'No receipt attached.'),
    h(
      'p',
      { class: 'note' },
      'Apply posts the entry under this id, links the transaction for the amount shown, and marks the receipt booked.',
    ),
  );
}
