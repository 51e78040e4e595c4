// The page's staged kinds (docs/guide/review-page.md "Views"): for each member of
// StagedKind, its name, its view (in a file of its own, or in plan-views.ts), what
// an operation of it holds and its one-line summary for the inbox rows. A kind
// added to StagedKind without its entry here fails tsc. The page imports only
// types from shared/contract, so it keeps this map rather than the registry's
// (shared/kinds/registry.ts). Subject keys: docs/reference/http-api.md §6.3;
// summary fields: each kind's `summary` in shared/kinds/<kind>/wire.ts.
import { h } from './dom.js';
import { lookup } from './context.js';
import { inboxResolveView } from './inbox-resolve-view.js';
import { reconcileView, repairView, reversalView } from './plan-views.js';
import { statementImportView } from './statement-import-view.js';
import { periodCloseView } from './period-close-view.js';
import { bankMatchView, type BankMatchPlan } from './bank-match-view.js';
import { journalEntryView } from './journal-entry-view.js';
import { revertView } from './revert-view.js';
import { approvalPolicyView } from './approval-policy-view.js';
import type {
  LinkRepairPlan as RepairPlan,
  ReconciliationPlan as ReconcilePlan,
  ReversalPlan,
  StagedKind,
  StagedOperationDetail as StagedOperation,
} from '../shared/contract/staged-operation.js';

export interface PageKind {
  /** The kind's name on the page. */
  label: string;
  /** The plan as a change to the books. */
  view(op: StagedOperation): HTMLElement;
  /** What the operation holds (its subject key, in words). */
  subject(op: StagedOperation): string;
  /** One line from its summary. */
  summary(s: Record<string, unknown>): string;
  /** It changes the governance itself (docs/design/staged-lifecycle.md "Approval policies"): never approved by its creator or an agent. */
  governance?: true;
}

const n = (s: Record<string, unknown>, k: string): number => Number(s[k] ?? 0);
const count = (s: Record<string, unknown>, k: string, one: string, many: string): string =>
  `${n(s, k)} ${n(s, k) === 1 ? one : many}`;

/** In the order the inbox's kind filter lists them. */
export const PAGE_KINDS: Record<StagedKind, PageKind> = {
  ledger_link_repair: {
    label: 'Link repair',
    view: (op) => repairView(op.plan as RepairPlan, lookup(op), op),
    subject: (op) => {
      const p = op.plan as RepairPlan;
      return `account ${p.bank_account_id}, counterparty ${p.counterparty_id}`;
    },
    summary: (s) =>
      `${count(s, 'moves', 'move', 'moves')}, ${count(s, 'links', 'new link', 'new links')}, ${count(s, 'unlinks', 'unlink', 'unlinks')}`,
  },
  bank_reconcile: {
    label: 'Reconciliation',
    view: (op) => reconcileView(op.plan as ReconcilePlan, lookup(op)),
    subject: (op) => `account ${(op.plan as ReconcilePlan).bank_account_id}`,
    summary: (s) =>
      `${count(s, 'transactions', 'transaction', 'transactions')} marked reconciled${n(s, 'left_out') ? `, ${n(s, 'left_out')} left out` : ''}`,
  },
  ledger_reversal: {
    label: 'Reversal',
    view: (op) => reversalView(op.plan as ReversalPlan, lookup(op)),
    subject: (op) => `entry ${(op.plan as ReversalPlan).ledger_entry_id}`,
    summary: (s) => `reverse ${String(s.ledger_entry_id)}, release ${count(s, 'unlinks', 'bank link', 'bank links')}`,
  },
  inbox_duplicates_resolve: {
    label: 'Duplicate resolution',
    view: (op) => inboxResolveView(op),
    subject: (op) => `duplicate group ${String((op.plan as { group_id?: unknown }).group_id)}`,
    summary: (s) =>
      s.resolution === 'not_duplicates'
        ? `${count(s, 'members', 'document', 'documents')} marked not duplicates`
        : `archive ${count(s, 'archives', 'duplicate', 'duplicates')}`,
  },
  statement_import: {
    label: 'Statement import',
    view: (op) => statementImportView(op),
    subject: (op) => `account ${String(op.summary.bank_account_id)}, import`,
    summary: (s) =>
      `${String(s.format)} import: ${count(s, 'new_transactions', 'new transaction', 'new transactions')}, ${n(s, 'skipped')} skipped`,
  },
  period_close: {
    label: 'Period close',
    governance: true,
    view: (op) => periodCloseView(op),
    subject: () => "the organisation's lock date",
    summary: (s) =>
      `close through ${String(s.through)}: ${count(s, 'entries', 'entry', 'entries')}, ${count(s, 'bank_transactions', 'bank transaction', 'bank transactions')}`,
  },
  bank_match: {
    label: 'Bank match',
    view: (op) => bankMatchView(op.plan as BankMatchPlan, lookup(op), op),
    subject: (op) => {
      const p = op.plan as BankMatchPlan;
      return `account ${p.bank_account_id}, ${p.transactions.length} transaction(s), ${p.entries.length} entr${p.entries.length === 1 ? 'y' : 'ies'}`;
    },
    summary: (s) => `${count(s, 'pairs', 'new link', 'new links')}`,
  },
  journal_entry: {
    label: 'Journal entry',
    view: (op) => journalEntryView(op),
    subject: (op) => `entry ${String(op.summary.ledger_entry_id)}`,
    summary: (s) =>
      `book ${String(s.ledger_entry_id)}: ${count(s, 'lines', 'line', 'lines')}${typeof s.bank_transaction_id === 'string' ? `, books ${s.bank_transaction_id}` : ''}${typeof s.document_id === 'string' ? `, attaches ${s.document_id}` : ''}`,
  },
  revert: {
    label: 'Revert',
    view: (op) => revertView(op),
    subject: (op) => `revert of ${String(op.summary.reverts)}`,
    summary: (s) =>
      `revert ${String(s.reverts)} (${String(s.reverts_kind)}): ${n(s, 'updates') + n(s, 'inserts') + n(s, 'deletes')} records back`,
  },
  approval_policy: {
    label: 'Approval policy change',
    governance: true,
    view: (op) => approvalPolicyView(op),
    subject: () => 'the approval policy',
    summary: (s) =>
      `version ${String(s.version)}: ${count(s, 'rules', 'rule', 'rules')}, ${count(s, 'unattended', 'unattended allowance', 'unattended allowances')}`,
  },
};

/**
 * Whether an operation changes the governance itself (a policy change, or the revert of one, whose summary names
 * the reverted kind): its creator and agents never approve it.
 */
export const changesGovernance = (op: { kind: string; summary: Record<string, unknown> }): boolean =>
  pageKind(op.kind)?.governance === true ||
  (typeof op.summary.reverts_kind === 'string' && pageKind(op.summary.reverts_kind)?.governance === true);

/** A kind the page does not know (a server newer than the page) is shown by its name and raw plan. */
const pageKind = (kind: string): PageKind | undefined => (PAGE_KINDS as Record<string, PageKind | undefined>)[kind];

export const kindLabel = (kind: string): string => pageKind(kind)?.label ?? kind;

/** [kind, label] pairs for the inbox's kind filter. */
export const KIND_OPTIONS: Array<[string, string]> = Object.entries(PAGE_KINDS).map(([kind, k]) => [kind, k.label]);

export function planView(op: StagedOperation): HTMLElement {
  const kind = pageKind(op.kind);
  if (kind) return kind.view(op);
  // A kind this page has no view for yet: the plan as the API answered it.
  return h(
    'section',
    { 'aria-labelledby': 'plan-h' },
    h('h2', { id: 'plan-h' }, 'Plan'),
    h('pre', { class: 'details' }, JSON.stringify(op.plan, null, 2)),
  );
}

export const subjectOf = (op: StagedOperation): string => pageKind(op.kind)?.subject(op) ?? '';

export const summaryOf = (op: StagedOperation): string => pageKind(op.kind)?.summary(op.summary) ?? '';

/**
 * The scope that stages each kind a revert can take back (docs/design/staged-lifecycle.md "Reverts"): the page offers
 * "Stage a revert" to a token holding it. A kind not here cannot be reverted.
 */
export const REVERT_SCOPES: Partial<Record<StagedKind, string>> = {
  bank_reconcile: 'bank:stage',
  ledger_link_repair: 'bank:stage',
  statement_import: 'bank:stage',
  inbox_duplicates_resolve: 'inbox:stage',
  bank_match: 'bank:stage',
  journal_entry: 'ledger:stage',
  approval_policy: 'policy:stage',
};
