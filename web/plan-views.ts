// The views of three kinds' plans (web/kinds.ts maps each kind to its view;
// docs/guide/review-page.md "Views"): what the plan would write, in the
// terms a bookkeeper checks. The plan says what changes; its context (the
// records it names, read at staging time) says what those records are.
import { entryCell, transactionFacts, type Lookup } from './context.js';
import { facts, h, table } from './dom.js';
import { money } from './format.js';
import type {
  LedgerLine as Line,
  LinkRepairPlan as RepairPlan,
  ReconciliationPlan as ReconcilePlan,
  RepairAction,
  ReversalPlan,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

/** A repair's amounts are in its bank account's currency (a repair across currencies is blocked); without context, numbers only. */
function amountIn(currency: string | undefined): (minor: number) => string {
  return (minor) => (currency ? money(minor, currency) : money(minor, '').trim());
}

const CHANGE: Record<RepairAction['kind'], string> = { move: 'moved', link: 'new link', unlink: 'released' };

/** Links written by apply, by action index (the apply result's `links`, when the operation is applied). */
type NewLinks = Map<number, string>;

function newLinksOf(op: StagedOperation): NewLinks {
  const links = (op.result as { links?: Array<{ action_index: number; link_id: string }> } | null)?.links ?? [];
  return new Map(links.map((l) => [l.action_index, l.link_id]));
}

export function repairView(plan: RepairPlan, ctx: Lookup, op: StagedOperation): HTMLElement {
  const amount = amountIn(ctx.currency);
  const why = new Map((ctx.raw.repair_actions ?? []).map((r) => [r.action_index, r]));
  const written = newLinksOf(op);
  const byTxn = new Map<string, Array<{ a: RepairAction; i: number }>>();
  plan.actions.forEach((a, i) =>
    byTxn.set(a.bank_transaction_id, [...(byTxn.get(a.bank_transaction_id) ?? []), { a, i }]),
  );
  const fifo = (i: number): string => {
    const r = why.get(i);
    if (!r) return '—';
    const place =
      r.fifo_position === null
        ? 'not in the FIFO queue'
        : `#${r.fifo_position} of ${r.fifo_queue_length} open, oldest first`;
    return `${place}; open ${amount(r.open_before_minor)} → ${amount(r.open_after_minor)}`;
  };
  const tables = [...byTxn.entries()].map(([txn, actions]) =>
    h(
      'div',
      { class: 'txn' },
      transactionFacts(ctx, txn) ? h('p', { class: 'note' }, `${txn}: ${transactionFacts(ctx, txn)}`) : null,
      table(
        `Bank transaction ${txn}`,
        ['Change', 'Linked now', 'After the plan', 'Amount', 'Why this entry (FIFO)'],
        actions.map(({ a, i }) => {
          const newLink = written.get(i);
          const before =
            a.kind === 'link'
              ? '—'
              : h(
                  'div',
                  {},
                  entryCell(ctx, a.kind === 'move' ? a.from_ledger_entry_id : a.ledger_entry_id),
                  h('div', { class: 'muted' }, `link ${a.link_id}`),
                );
          const after =
            a.kind === 'unlink'
              ? '—'
              : h(
                  'div',
                  {},
                  entryCell(ctx, a.kind === 'move' ? a.to_ledger_entry_id : a.ledger_entry_id),
                  newLink
                    ? h(
                        'div',
                        { class: 'muted', 'data-testid': 'new-link' },
                        a.kind === 'move' ? `link ${a.link_id} → ${newLink}` : `link ${newLink}`,
                      )
                    : null,
                );
          return {
            cells: [
              h('span', { class: `badge change-${a.kind}` }, CHANGE[a.kind]),
              before,
              after,
              h('span', { class: 'num' }, amount(a.amount_minor)),
              fifo(i),
            ],
            attrs: { class: a.kind === 'move' ? 'moved' : undefined },
          };
        }),
      ),
    ),
  );
  const s = plan.summary;
  const account = ctx.raw.bank_account;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Link repair: links before and after'),
    facts([
      ['Bank account', account ? `${account.id} (${account.name}, ${account.currency})` : plan.bank_account_id],
      ['Counterparty', plan.counterparty_id],
      ['As of', plan.as_of],
      ['Amounts', account ? `in ${account.currency}` : `in the currency of account ${plan.bank_account_id}`],
    ]),
    h(
      'p',
      { class: 'note' },
      'Each table lists the links of one bank transaction that the plan changes; links it leaves alone are not shown. Moved links are highlighted. "Why this entry": the entry\'s place among the counterparty\'s open entries the FIFO rule fills oldest first, and what it leaves open before and after the change.',
    ),
    tables.length ? tables : h('p', {}, 'The plan changes no links.'),
    facts([
      ['Moved', `${s.moves ?? 0} (${amount(s.moved_minor ?? 0)})`],
      ['New links', `${s.links ?? 0} (${amount(s.linked_minor ?? 0)})`],
      ['Released', `${s.unlinks ?? 0} (${amount(s.unlinked_minor ?? 0)})`],
      ['Left unallocated on transactions', amount(s.unallocated_transaction_minor ?? 0)],
      ['Left uncovered on entries', amount(s.uncovered_entry_minor ?? 0)],
    ]),
    h('h3', {}, 'Blockers'),
    h(
      'p',
      {},
      'None. A repair with blockers is answered "blocked" and never staged; if apply finds the books changed, the documents are listed above.',
    ),
  );
}

export function reconcileView(plan: ReconcilePlan, ctx: Lookup): HTMLElement {
  const cur = plan.statement.currency;
  const rows = plan.transactions.map((t) => {
    const linked = t.links.reduce((sum, l) => sum + l.amount_minor, 0);
    return [
      t.bank_transaction_id,
      t.booking_date,
      h('span', { class: 'num' }, money(t.amount_minor, cur)),
      h(
        'div',
        {},
        t.links.map((l) => h('div', {}, entryCell(ctx, l.ledger_entry_id), `linked ${money(l.amount_minor, cur)}`)),
      ),
      linked === Math.abs(t.amount_minor) ? 'fully linked' : `linked ${money(linked, cur)}`,
    ];
  });
  const balanced = plan.opening_balance_minor + plan.cleared_total_minor === plan.closing_balance_minor;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Reconciliation: what it marks'),
    h('h3', {}, 'Statement'),
    facts([
      ['Bank account', plan.bank_account_id],
      ['Statement end', plan.statement.end_date],
      ['Reference', plan.statement.reference ?? '—'],
      ['Opening balance', money(plan.opening_balance_minor, cur)],
      ['Cleared total', money(plan.cleared_total_minor, cur)],
      ['Closing balance', money(plan.statement.closing_balance_minor, cur)],
    ]),
    table('Transactions it marks reconciled', ['Transaction', 'Booked', 'Amount', 'Linked to', 'Links'], rows),
    plan.left_out.count
      ? h(
          'p',
          {},
          `${plan.left_out.count} unreconciled transactions of the account are left out${plan.left_out.first_ids.length ? `: ${plan.left_out.first_ids.join(', ')}` : ''}.`,
        )
      : null,
    h('h3', {}, 'Checks passed'),
    h(
      'ul',
      { class: 'checks' },
      h('li', {}, `Currency is the account's (${cur}).`),
      h(
        'li',
        {},
        `Every transaction belongs to ${plan.bank_account_id}, is unreconciled and booked on or before ${plan.statement.end_date}.`,
      ),
      h('li', {}, 'Every transaction is fully linked to the ledger.'),
      h(
        'li',
        {},
        `Opening ${money(plan.opening_balance_minor, cur)} + cleared ${money(plan.cleared_total_minor, cur)} = closing ${money(plan.closing_balance_minor, cur)}${balanced ? '' : ' (does not add up here: report this)'}.`,
      ),
    ),
    h('h3', {}, 'After apply'),
    facts([['reconciled_through', `${plan.statement.end_date}, balance ${money(plan.closing_balance_minor, cur)}`]]),
  );
}

function linesTable(caption: string, lines: Line[], cur: string): HTMLElement {
  return table(
    caption,
    ['Account', 'Debit', 'Credit'],
    lines.map((l) => [
      l.account,
      h('span', { class: 'num' }, l.debit_minor ? money(l.debit_minor, cur) : ''),
      h('span', { class: 'num' }, l.credit_minor ? money(l.credit_minor, cur) : ''),
    ]),
  );
}

export function reversalView(plan: ReversalPlan, ctx: Lookup): HTMLElement {
  const r = plan.reversing_entry;
  const entry = ctx.entry(plan.ledger_entry_id);
  // The reversing entry is the original with debit and credit swapped (shared/kinds/ledger-reversal/plan.ts): swapping back shows the original.
  const original = r.lines.map((l) => ({
    account: l.account,
    debit_minor: l.credit_minor,
    credit_minor: l.debit_minor,
  }));
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Reversal: original and reversing entry'),
    facts([
      ['Entry', plan.ledger_entry_id],
      ['Reversal date', plan.reversal_date],
      ['Reason', plan.reason ?? '—'],
    ]),
    h(
      'div',
      { class: 'side-by-side' },
      h(
        'div',
        {},
        h('h3', {}, `Original entry ${plan.ledger_entry_id}`),
        facts([
          ['Date', entry?.entry_date ?? '—'],
          ['Description', entry?.description ?? '—'],
          ['Counterparty', r.counterparty_id],
          ['Reference', r.reference],
          ['Open amount', entry ? money(Math.abs(entry.open_amount_minor), entry.currency) : '—'],
        ]),
        linesTable(`Lines of ${plan.ledger_entry_id}`, original, r.currency),
      ),
      h(
        'div',
        {},
        h('h3', {}, 'Reversing entry (new)'),
        facts([
          ['Date', r.entry_date],
          ['Description', r.description],
        ]),
        linesTable('Lines of the reversing entry', r.lines, r.currency),
      ),
    ),
    plan.actions.length
      ? table(
          'Bank links released',
          ['Link', 'Bank transaction', 'Entry', 'Amount'],
          plan.actions.map((a) => [
            a.link_id,
            h(
              'div',
              {},
              h('code', {}, a.bank_transaction_id),
              transactionFacts(ctx, a.bank_transaction_id)
                ? h('div', { class: 'muted' }, transactionFacts(ctx, a.bank_transaction_id))
                : null,
            ),
            a.ledger_entry_id,
            h('span', { class: 'num' }, money(a.amount_minor, r.currency)),
          ]),
        )
      : h('p', {}, 'Bank links released: none, the entry has no bank links.'),
  );
}
