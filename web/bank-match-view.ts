// A bank match's view (web/kinds.ts; docs/guide/review-page.md "Views"): each
// pair as a new link, then each transaction and each entry with what its links
// leave open before and after the whole operation. The plan's shape is
// shared/kinds/bank-match/plan.ts (the page imports only shared/contract, so it
// states the fields it reads here).
import { entryCell, transactionFacts, type Lookup } from './context.js';
import { facts, h, table } from './dom.js';
import { money } from './format.js';
import type { StagedOperationDetail as StagedOperation } from '../shared/contract/staged-operation.js';

export interface BankMatchPlan {
  bank_account_id: string;
  currency: string;
  pairs: Array<{ bank_transaction_id: string; ledger_entry_id: string; amount_minor: number }>;
  transactions: Array<{
    bank_transaction_id: string;
    amount_minor: number;
    open_before_minor: number;
    open_after_minor: number;
  }>;
  entries: Array<{
    ledger_entry_id: string;
    open_amount_minor: number;
    open_before_minor: number;
    open_after_minor: number;
  }>;
  total_minor: number;
  note: string | null;
}

export function bankMatchView(plan: BankMatchPlan, ctx: Lookup, op: StagedOperation): HTMLElement {
  const amount = (minor: number): string => money(minor, plan.currency);
  const written = new Map(
    ((op.result as { links?: Array<{ action_index: number; link_id: string }> } | null)?.links ?? []).map((l) => [
      l.action_index,
      l.link_id,
    ]),
  );
  const account = ctx.raw.bank_account;
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Bank match: new links'),
    facts([
      ['Bank account', account ? `${account.id} (${account.name}, ${account.currency})` : plan.bank_account_id],
      ['Pairs', String(plan.pairs.length)],
      ['Linked in all', amount(plan.total_minor)],
      ...(plan.note ? ([['Note', plan.note]] as [string, string][]) : []),
    ]),
    table(
      'Pairs: each becomes one link',
      ['Bank transaction', 'Ledger entry', 'Amount'],
      plan.pairs.map((p, i) => [
        h(
          'div',
          { class: 'record' },
          h('code', {}, p.bank_transaction_id),
          transactionFacts(ctx, p.bank_transaction_id)
            ? h('div', { class: 'record-facts' }, transactionFacts(ctx, p.bank_transaction_id))
            : null,
          written.get(i) ? h('div', { class: 'muted', 'data-testid': 'new-link' }, `link ${written.get(i)}`) : null,
        ),
        entryCell(ctx, p.ledger_entry_id),
        h('span', { class: 'num' }, amount(p.amount_minor)),
      ]),
    ),
    table(
      'Bank transactions: left unlinked before and after',
      ['Bank transaction', 'Amount', 'Unlinked before', 'Unlinked after'],
      plan.transactions.map((t) => [
        h('code', {}, t.bank_transaction_id),
        h('span', { class: 'num' }, amount(t.amount_minor)),
        h('span', { class: 'num' }, amount(t.open_before_minor)),
        h('span', { class: 'num' }, amount(t.open_after_minor)),
      ]),
    ),
    table(
      'Ledger entries: left open before and after',
      ['Ledger entry', 'Open amount', 'Open before', 'Open after'],
      plan.entries.map((e) => [
        h('code', {}, e.ledger_entry_id),
        h('span', { class: 'num' }, amount(Math.abs(e.open_amount_minor))),
        h('span', { class: 'num' }, amount(e.open_before_minor)),
        h('span', { class: 'num' }, amount(e.open_after_minor)),
      ]),
    ),
  );
}
