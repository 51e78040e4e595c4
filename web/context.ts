// The records a plan names, as they stood at staging time (`context` of a
// staged operation, docs/design/staged-lifecycle.md "Context"), looked up by id
// for the plan views. An operation staged before context existed has none:
// every lookup then answers undefined and the views show ids only.
import { h } from './dom.js';
import { money } from './format.js';
import type {
  EntryContext,
  PlanContext,
  StagedOperationDetail as StagedOperation,
  TransactionContext,
} from '../shared/contract/staged-operation.js';

export interface Lookup {
  entry(id: string): EntryContext | undefined;
  transaction(id: string): TransactionContext | undefined;
  /** The bank account's currency, when the plan names an account. */
  currency: string | undefined;
  raw: PlanContext;
}

export function lookup(op: StagedOperation): Lookup {
  const raw = op.context ?? {};
  const entries = new Map((raw.ledger_entries ?? []).map((e) => [e.id, e]));
  const transactions = new Map((raw.bank_transactions ?? []).map((t) => [t.id, t]));
  return {
    entry: (id) => entries.get(id),
    transaction: (id) => transactions.get(id),
    currency: raw.bank_account?.currency,
    raw,
  };
}

/** An entry as a bookkeeper recognises it: id, then date · reference · description · open amount. */
export function entryCell(ctx: Lookup, id: string): HTMLElement {
  const e = ctx.entry(id);
  return h(
    'div',
    { class: 'record' },
    h('code', {}, id),
    e
      ? h(
          'div',
          { class: 'record-facts' },
          h('span', { 'data-testid': 'entry-date' }, e.entry_date),
          ' · ',
          e.reference,
          ' · ',
          e.description,
          ' · open ',
          h('span', { class: 'num' }, money(Math.abs(e.open_amount_minor), e.currency)),
        )
      : null,
  );
}

/** A bank transaction's own facts: booked, amount, counterparty, remittance. */
export function transactionFacts(ctx: Lookup, id: string): string | null {
  const t = ctx.transaction(id);
  if (!t) return null;
  return `booked ${t.booking_date} · ${money(t.amount_minor, t.currency)} · ${t.counterparty_name}${t.remittance_info ? ` · “${t.remittance_info}”` : ''}`;
}
