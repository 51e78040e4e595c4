// One staged operation as a change to the books, per kind
// (docs/guide/review-page.md "One operation"): what the plan would write, in the
// terms a bookkeeper checks. Everything shown is read from the plan itself.
import { facts, h, table } from './dom.js';
import { money } from './format.js';
import { statementImportView } from './statement-import-view.js';
import type {
  LedgerLine as Line, LinkRepairPlan as RepairPlan, ReconciliationPlan as ReconcilePlan, RepairAction, ReversalPlan, StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

export function planView(op: StagedOperation): HTMLElement {
  switch (op.kind) {
    case 'ledger_link_repair': return repairView(op.plan as RepairPlan);
    case 'bank_reconcile': return reconcileView(op.plan as ReconcilePlan);
    case 'ledger_reversal': return reversalView(op.plan as ReversalPlan);
    case 'statement_import': return statementImportView(op);
  }
}

/** A repair plan carries no currency: its amounts are in the bank account's currency (a repair across currencies is blocked). */
function plain(minor: number): string {
  return money(minor, '').trim();
}

const CHANGE: Record<RepairAction['kind'], string> = { move: 'moved', link: 'new link', unlink: 'released' };

function repairView(plan: RepairPlan): HTMLElement {
  const byTxn = new Map<string, RepairAction[]>();
  for (const a of plan.actions) byTxn.set(a.bank_transaction_id, [...(byTxn.get(a.bank_transaction_id) ?? []), a]);
  const unit = `amounts in the currency of account ${plan.bank_account_id}`;
  const tables = [...byTxn.entries()].map(([txn, actions]) => table(`Bank transaction ${txn}`, ['Change', 'Linked now', 'After the plan', 'Amount'], actions.map((a) => {
    const before = a.kind === 'link' ? '—' : `${a.kind === 'move' ? a.from_ledger_entry_id : a.ledger_entry_id} (link ${a.link_id})`;
    const after = a.kind === 'move' ? a.to_ledger_entry_id : a.kind === 'link' ? a.ledger_entry_id : '—';
    return { cells: [h('span', { class: `badge change-${a.kind}` }, CHANGE[a.kind]), before, after, h('span', { class: 'num' }, plain(a.amount_minor))], attrs: { class: a.kind === 'move' ? 'moved' : undefined } };
  })));
  const s = plan.summary;
  return h('section', { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Link repair: links before and after'),
    facts([['Bank account', plan.bank_account_id], ['Counterparty', plan.counterparty_id], ['As of', plan.as_of], ['Amounts', unit]]),
    h('p', { class: 'note' }, 'Each table lists the links of one bank transaction that the plan changes; links it leaves alone are not shown. Moved links are highlighted.'),
    tables.length ? tables : h('p', {}, 'The plan changes no links.'),
    facts([
      ['Moved', `${s.moves ?? 0} (${plain(s.moved_minor ?? 0)})`], ['New links', `${s.links ?? 0} (${plain(s.linked_minor ?? 0)})`],
      ['Released', `${s.unlinks ?? 0} (${plain(s.unlinked_minor ?? 0)})`],
      ['Left unallocated on transactions', plain(s.unallocated_transaction_minor ?? 0)], ['Left uncovered on entries', plain(s.uncovered_entry_minor ?? 0)],
    ]),
    h('h3', {}, 'Blockers'),
    h('p', {}, 'None. A repair with blockers is answered "blocked" and never staged; if apply finds the books changed, the documents are listed above.'));
}

function reconcileView(plan: ReconcilePlan): HTMLElement {
  const cur = plan.statement.currency;
  const rows = plan.transactions.map((t) => {
    const linked = t.links.reduce((sum, l) => sum + l.amount_minor, 0);
    return [t.bank_transaction_id, t.booking_date, h('span', { class: 'num' }, money(t.amount_minor, cur)),
      h('div', {}, t.links.map((l) => h('div', {}, `${l.ledger_entry_id} (${money(l.amount_minor, cur)})`))),
      linked === Math.abs(t.amount_minor) ? 'fully linked' : `linked ${money(linked, cur)}`];
  });
  const balanced = plan.opening_balance_minor + plan.cleared_total_minor === plan.closing_balance_minor;
  return h('section', { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Reconciliation: what it marks'),
    h('h3', {}, 'Statement'),
    facts([
      ['Bank account', plan.bank_account_id], ['Statement end', plan.statement.end_date], ['Reference', plan.statement.reference ?? '—'],
      ['Opening balance', money(plan.opening_balance_minor, cur)], ['Cleared total', money(plan.cleared_total_minor, cur)],
      ['Closing balance', money(plan.statement.closing_balance_minor, cur)],
    ]),
    table('Transactions it marks reconciled', ['Transaction', 'Booked', 'Amount', 'Linked to', 'Links'], rows),
    plan.left_out.count ? h('p', {}, `${plan.left_out.count} unreconciled transactions of the account are left out${plan.left_out.first_ids.length ? `: ${plan.left_out.first_ids.join(', ')}` : ''}.`) : null,
    h('h3', {}, 'Checks passed'),
    h('ul', { class: 'checks' },
      h('li', {}, `Currency is the account's (${cur}).`),
      h('li', {}, `Every transaction belongs to ${plan.bank_account_id}, is unreconciled and booked on or before ${plan.statement.end_date}.`),
      h('li', {}, 'Every transaction is fully linked to the ledger.'),
      h('li', {}, `Opening ${money(plan.opening_balance_minor, cur)} + cleared ${money(plan.cleared_total_minor, cur)} = closing ${money(plan.closing_balance_minor, cur)}${balanced ? '' : ' (does not add up here: report this)'}.`)),
    h('h3', {}, 'After apply'),
    facts([['reconciled_through', `${plan.statement.end_date}, balance ${money(plan.closing_balance_minor, cur)}`]]));
}

function linesTable(caption: string, lines: Line[], cur: string): HTMLElement {
  return table(caption, ['Account', 'Debit', 'Credit'], lines.map((l) => [l.account,
    h('span', { class: 'num' }, l.debit_minor ? money(l.debit_minor, cur) : ''), h('span', { class: 'num' }, l.credit_minor ? money(l.credit_minor, cur) : '')]));
}

function reversalView(plan: ReversalPlan): HTMLElement {
  const r = plan.reversing_entry;
  // The reversing entry is the original with debit and credit swapped (shared/domain/reversal-plan.ts): swapping back shows the original.
  const original = r.lines.map((l) => ({ account: l.account, debit_minor: l.credit_minor, credit_minor: l.debit_minor }));
  return h('section', { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Reversal: original and reversing entry'),
    facts([['Entry', plan.ledger_entry_id], ['Reversal date', plan.reversal_date], ['Reason', plan.reason ?? '—']]),
    h('div', { class: 'side-by-side' },
      h('div', {}, h('h3', {}, `Original entry ${plan.ledger_entry_id}`), facts([['Counterparty', r.counterparty_id], ['Reference', r.reference]]), linesTable(`Lines of ${plan.ledger_entry_id}`, original, r.currency)),
      h('div', {}, h('h3', {}, 'Reversing entry (new)'), facts([['Date', r.entry_date], ['Description', r.description]]), linesTable('Lines of the reversing entry', r.lines, r.currency))),
    plan.actions.length
      ? table('Bank links released', ['Link', 'Bank transaction', 'Entry', 'Amount'], plan.actions.map((a) => [a.link_id, a.bank_transaction_id, a.ledger_entry_id, h('span', { class: 'num' }, money(a.amount_minor, r.currency))]))
      : h('p', {}, 'Bank links released: none, the entry has no bank links.'));
}
