// The plans a staged operation can hold, one renderer per staged kind, as a
// bookkeeper reads them (plan shapes: docs/reference/http-api.md "Walk-through by
// example" and shared/schemas/staging-results.ts). The kind comes with the answer
// (the operation's `kind`, or the staging call's operation): a plan is never
// guessed from its fields.
import type { LinkRepairPlan, ReconciliationPlan, ReversalPlan, StatementImportPlan } from './answer-data.js';
import type { InboxResolvePlan } from '../../../shared/kinds/inbox-duplicates-resolve/plan.js';
import type { PeriodClosePlan } from '../../../shared/kinds/period-close/plan.js';
import type { StagedKind } from '../../../shared/kinds/registry.js';
import type { BankMatchPlan } from '../../../shared/kinds/bank-match/plan.js';
import type { RevertPlan } from '../../../shared/kinds/revert/plan.js';
import type { ApprovalPolicy, ApprovalPolicyPlan } from '../../../shared/domain/approval-policy.js';
import { formatMoney } from './money.js';
import { journalEntryPlan } from './journal-entry-plan.js';
import type { JournalEntryPlan } from '../../../shared/kinds/journal-entry/plan.js';
import type { Style } from './style.js';
import { table } from './table.js';

type PlanRenderer = (style: Style, plan: unknown) => string;

/** One renderer per kind: a kind added to StagedKind without one fails tsc here. */
const PLAN_RENDERERS: Record<StagedKind, PlanRenderer> = {
  bank_reconcile: (style, plan) => reconcilePlan(style, plan as ReconciliationPlan),
  ledger_link_repair: (style, plan) => repairPlan(style, plan as LinkRepairPlan),
  ledger_reversal: (style, plan) => reversalPlan(style, plan as ReversalPlan),
  inbox_duplicates_resolve: (style, plan) => inboxResolvePlan(style, plan as InboxResolvePlan),
  statement_import: (style, plan) => statementImportPlan(style, plan as StatementImportPlan),
  period_close: (style, plan) => periodClosePlan(style, plan as PeriodClosePlan),
  bank_match: (style, plan) => bankMatchPlan(style, plan as BankMatchPlan),
  journal_entry: (style, plan) => journalEntryPlan(style, plan as JournalEntryPlan),
  revert: (style, plan) => revertPlan(style, plan as RevertPlan),
  approval_policy: (style, plan) => approvalPolicyPlan(style, plan as ApprovalPolicyPlan),
};

function periodClosePlan(style: Style, plan: PeriodClosePlan): string {
  const before = plan.lock_date_before ? `lock date now ${plan.lock_date_before}` : 'no lock date yet';
  return (
    `Closes every day through ${style.bold(plan.through)} (${before})${plan.note ? ` (note: ${plan.note})` : ''}\n` +
    `In the period: ${plan.entries} ledger entries, ${plan.bank_transactions} bank transactions\n`
  );
}

/** The plan of an answer of a kind (none: a blocked repair has null; no kind: the plan as JSON). */
export function renderPlan(style: Style, kind: StagedKind | null, plan: unknown): string {
  if (plan === null || plan === undefined) return '';
  return kind ? PLAN_RENDERERS[kind](style, plan) : `${JSON.stringify(plan, null, 2)}\n`;
}

function bankMatchPlan(style: Style, plan: BankMatchPlan): string {
  const money = (m: number): string => formatMoney(m, plan.currency);
  let out = `Links ${plan.pairs.length} pair(s) on bank account ${style.bold(plan.bank_account_id)}, ${money(plan.total_minor)} in all${plan.note ? ` (note: ${plan.note})` : ''}\n`;
  out += table(
    style,
    ['transaction', 'entry', 'amount'],
    plan.pairs.map((p) => [p.bank_transaction_id, p.ledger_entry_id, money(p.amount_minor)]),
  );
  out += `Transactions, unlinked before → after:\n${table(
    style,
    ['transaction', 'amount', 'before', 'after'],
    plan.transactions.map((t) => [
      t.bank_transaction_id,
      formatMoney(t.amount_minor, plan.currency, { signed: true }),
      money(t.open_before_minor),
      money(t.open_after_minor),
    ]),
  )}`;
  out += `Entries, open before → after:\n${table(
    style,
    ['entry', 'open amount', 'before', 'after'],
    plan.entries.map((e) => [
      e.ledger_entry_id,
      formatMoney(e.open_amount_minor, plan.currency, { signed: true }),
      money(e.open_before_minor),
      money(e.open_after_minor),
    ]),
  )}`;
  return out;
}

function inboxResolvePlan(style: Style, plan: InboxResolvePlan): string {
  const archiving = plan.resolution === 'archive_duplicates';
  let out = archiving
    ? `Resolves duplicate group ${style.bold(plan.group_id)}: keep ${style.bold(String(plan.keep_document_id))}, archive the others${plan.note ? ` (note: ${plan.note})` : ''}\n`
    : `Resolves duplicate group ${style.bold(plan.group_id)}: not duplicates; never grouped together again${plan.note ? ` (note: ${plan.note})` : ''}\n`;
  out += table(
    style,
    ['document', 'on apply'],
    (plan.member_ids ?? []).map((id) => [
      id,
      !archiving
        ? 'stays'
        : id === plan.keep_document_id
          ? 'kept'
          : `archived (duplicate_of:${String(plan.keep_document_id)})`,
    ]),
  );
  return out;
}

function reversalPlan(style: Style, plan: ReversalPlan): string {
  const entry = plan.reversing_entry;
  const currency = entry.currency;
  let out = `Reverses ledger entry ${style.bold(plan.ledger_entry_id)} on ${plan.reversal_date}${plan.reason ? ` (reason: ${plan.reason})` : ''}\n`;
  out += `Reversing entry: ${entry.description}, ref ${entry.reference}, counterparty ${entry.counterparty_id}, ${currency}\n`;
  out += table(
    style,
    ['account', 'debit', 'credit'],
    (entry.lines ?? []).map((l) => [
      String(l.account),
      l.debit_minor ? formatMoney(l.debit_minor, currency) : '',
      l.credit_minor ? formatMoney(l.credit_minor, currency) : '',
    ]),
  );
  const actions = plan.actions ?? [];
  out +=
    actions.length === 0
      ? 'Bank links removed: none\n'
      : `Bank links removed (${actions.length}):\n${table(
          style,
          ['link', 'transaction', 'amount'],
          actions.map((a) => [a.link_id, a.bank_transaction_id, formatMoney(a.amount_minor, currency)]),
        )}`;
  return out;
}

function reconcilePlan(style: Style, plan: ReconciliationPlan): string {
  const st = plan.statement;
  const currency = st.currency;
  let out = `Reconciles bank account ${style.bold(plan.bank_account_id)} through ${st.end_date}${st.reference ? ` (statement ${st.reference})` : ''}\n`;
  out += `Opening ${formatMoney(plan.opening_balance_minor, currency)} + cleared ${formatMoney(plan.cleared_total_minor, currency, { signed: true })} = closing ${formatMoney(plan.closing_balance_minor, currency)}\n`;
  const txns = plan.transactions ?? [];
  out += `Transactions (${txns.length}):\n`;
  out += table(
    style,
    ['transaction', 'date', 'amount', 'linked to'],
    txns.map((t) => [
      t.bank_transaction_id,
      t.booking_date,
      formatMoney(t.amount_minor, currency, { signed: true }),
      (t.links ?? []).map((l) => `${l.ledger_entry_id} (${formatMoney(l.amount_minor, currency)})`).join(', '),
    ]),
  );
  if (plan.left_out?.count > 0) {
    out +=
      style.yellow(
        `Left out: ${plan.left_out.count} unreconciled transaction(s) up to ${st.end_date}: ${plan.left_out.first_ids.join(', ')}${plan.left_out.count > plan.left_out.first_ids.length ? ', …' : ''}`,
      ) + '\n';
  }
  return out;
}

function repairPlan(style: Style, plan: LinkRepairPlan): string {
  // The repair answer carries no currency: amounts are the account's minor units.
  const money = (m: number): string => formatMoney(m, null);
  let out = `Repairs links of bank account ${style.bold(plan.bank_account_id)} with counterparty ${style.bold(plan.counterparty_id)} as of ${plan.as_of} (FIFO)\n`;
  const actions = plan.actions ?? [];
  if (actions.length > 0) {
    out += `Actions (${actions.length}):\n`;
    out += table(
      style,
      ['action', 'transaction', 'link', 'from entry', 'to entry', 'amount'],
      actions.map((a) => [
        a.kind,
        a.bank_transaction_id,
        'link_id' in a ? a.link_id : '',
        a.kind === 'move' ? a.from_ledger_entry_id : a.kind === 'unlink' ? a.ledger_entry_id : '',
        a.kind === 'move' ? a.to_ledger_entry_id : a.kind === 'link' ? a.ledger_entry_id : '',
        money(a.amount_minor),
      ]),
    );
  }
  const s = plan.summary;
  if (s) {
    out += `Summary: ${s.moves} move(s) ${money(s.moved_minor)}, ${s.links} link(s) ${money(s.linked_minor)}, ${s.unlinks} unlink(s) ${money(s.unlinked_minor)}\n`;
    out += `Unallocated transaction money: ${money(s.unallocated_transaction_minor)}; uncovered entry amounts: ${money(s.uncovered_entry_minor)}\n`;
  }
  return out;
}

/** A statement import (docs/guide/statement-import.md): the new transactions and the skipped entries with their reasons. */
function statementImportPlan(style: Style, plan: StatementImportPlan): string {
  const currency = plan.statements[0]?.currency ?? null;
  let out = `Imports a ${plan.format} statement into bank account ${style.bold(plan.bank_account_id)} (file sha256 ${plan.file_sha256.slice(0, 12)}…)\n`;
  out += `New transactions (${plan.new_transactions.length}):\n`;
  out += table(
    style,
    ['date', 'amount', 'counterparty', 'remittance', 'bank ref'],
    plan.new_transactions.map((t) => [
      t.booking_date,
      formatMoney(t.amount_minor, t.currency, { signed: true }),
      t.counterparty_id ?? t.counterparty_name ?? '',
      t.remittance_info ?? '',
      t.bank_reference ?? '',
    ]),
  );
  if (plan.skipped.length > 0) {
    out += `Skipped (${plan.skipped.length}):\n`;
    out += table(
      style,
      ['date', 'amount', 'bank ref', 'reason', 'matches'],
      plan.skipped.map((s) => [
        s.booking_date,
        formatMoney(s.amount_minor, currency, { signed: true }),
        s.bank_reference ?? '',
        s.reason,
        s.existing_transaction_id ?? '',
      ]),
    );
  }
  return out;
}

/** A revert: what comes back, record by record (docs/design/staged-lifecycle.md "Reverts"). */
function revertPlan(style: Style, plan: RevertPlan): string {
  const what = (c: RevertPlan['changes'][number]): string =>
    c.action === 'update'
      ? `back to ${Object.entries(c.set)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(', ')} (version ${c.version})`
      : c.action === 'delete'
        ? `removed (version ${c.version})`
        : 'restored';
  let out = `Reverts ${plan.reverts_kind} ${style.bold(plan.reverts)}: ${plan.changes.length} records written back\n`;
  out += table(
    style,
    ['record', 'on apply'],
    plan.changes.map((c) => [`${c.collection}/${c.id}`, what(c)]),
  );
  return out;
}

/** A policy change: the policy it puts in force (docs/design/staged-lifecycle.md "Approval policies"). */
export function approvalPolicyPlan(style: Style, plan: ApprovalPolicyPlan): string {
  return approvalPolicy(
    style,
    `version ${style.bold(String(plan.version))} (replaces version ${plan.base_version})`,
    plan,
  );
}

/** A policy: its rules in the order they are tried, and its unattended allowances. */
export function approvalPolicy(
  style: Style,
  title: string,
  policy: Pick<ApprovalPolicy, 'rules' | 'agents_may_approve' | 'unattended'>,
): string {
  let out = `Approval policy ${title}; agents may approve: ${policy.agents_may_approve ? 'yes' : 'no'}\n`;
  out += table(
    style,
    ['rule', 'kinds', 'from amount', 'approvals', 'approvers'],
    policy.rules.map((r, i) => [
      String(i + 1),
      r.kinds.join(', '),
      String(r.min_amount_minor ?? 0),
      String(r.approvals),
      r.approvers,
    ]),
  );
  if (policy.unattended.length > 0)
    out += table(
      style,
      ['unattended actor', 'kinds', 'max amount', 'max per day'],
      policy.unattended.map((u) => [
        u.actor,
        u.kinds.join(', '),
        String(u.max_amount_minor),
        String(u.max_per_day_minor),
      ]),
    );
  return out;
}
