// A statement import as the reviewer checks it (docs/guide/statement-import.md,
// docs/guide/review-page.md "Views"): the statements read, the new
// transactions apply would add, and the entries skipped as already on the
// account with the reason and the transaction they match. Read from the plan.
import { facts, h, table } from './dom.js';
import { money } from './format.js';
import type {
  StagedOperationDetail as StagedOperation,
  StatementImportPlan,
} from '../shared/contract/staged-operation.js';

const REASONS: Record<StatementImportPlan['skipped'][number]['reason'], string> = {
  same_bank_reference: 'same bank reference',
  same_fingerprint: 'same date, amount and text',
  period_locked: 'dated in a closed period (on or before the lock date)',
};

const num = (text: string) => h('span', { class: 'num' }, text);

export function statementImportView(op: StagedOperation): HTMLElement {
  const plan = op.plan as StatementImportPlan;
  const cur = plan.statements[0]?.currency ?? '';
  const balance = (minor: number | null) => (minor === null ? '—' : money(minor, cur));
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Statement import: what it adds'),
    facts([
      ['Bank account', plan.bank_account_id],
      ['Format', plan.format],
      ['File SHA-256', plan.file_sha256],
    ]),
    table(
      'Statements read',
      ['Reference', 'From', 'To', 'Opening', 'Closing'],
      plan.statements.map((s) => [
        s.reference,
        s.start_date ?? '—',
        s.end_date ?? '—',
        num(s.opening_balance_minor === null ? '—' : money(s.opening_balance_minor, s.currency)),
        num(s.closing_balance_minor === null ? '—' : money(s.closing_balance_minor, s.currency)),
      ]),
    ),
    plan.new_transactions.length
      ? table(
          `New transactions (${plan.new_transactions.length})`,
          ['Booked', 'Amount', 'Counterparty', 'Remittance', 'Bank reference', 'New id'],
          plan.new_transactions.map((t) => [
            t.booking_date,
            num(money(t.amount_minor, t.currency)),
            t.counterparty_id
              ? `${t.counterparty_name ?? ''} (${t.counterparty_id})`
              : `${t.counterparty_name ?? '—'} (no known counterparty)`,
            t.remittance_info ?? '—',
            t.bank_reference ?? '—',
            t.id,
          ]),
        )
      : h('p', {}, 'No new transactions.'),
    plan.skipped.length
      ? table(
          `Skipped (${plan.skipped.length})`,
          ['Booked', 'Amount', 'Bank reference', 'Reason', 'Matches'],
          plan.skipped.map((s) => [
            s.booking_date,
            num(balance(s.amount_minor)),
            s.bank_reference ?? '—',
            REASONS[s.reason],
            s.existing_transaction_id ?? '—',
          ]),
        )
      : h('p', {}, 'Nothing skipped: no entry of the file is on the account yet.'),
    h(
      'p',
      { class: 'note' },
      'Apply inserts the new transactions as unreconciled. Warnings (balances that do not add up, entries left out) are listed with the operation.',
    ),
  );
}
