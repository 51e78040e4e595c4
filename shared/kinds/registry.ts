// The staged kinds' registry (docs/design/architecture.md "Kinds"): one module per
// member of StagedKind, so a kind added to the union without its module fails
// tsc here, naming it. The route table, OpenAPI, the MCP catalogue, the CLI's
// output and the stored operations' summaries read the kinds from here; the
// worker's own registry (worker/kinds.ts) adds what each kind computes.
import type { ErrorCode } from '../errors.js';
import { STAGED_KINDS, type StagedKind } from '../domain/staged-kind.js';
import type { RouteContract } from '../contract/route-parts.js';
import type { InboxResolveStageInput } from './inbox-duplicates-resolve/schema.js';
import type { LinkRepairStageRequestBody } from './ledger-link-repair/schema.js';
import type { ReconcileStageRequestBody } from './bank-reconcile/schema.js';
import type { ReversalStageInput } from './ledger-reversal/schema.js';
import type { StatementImportStageInput } from './statement-import/schema.js';
import type { PeriodCloseStageInput } from './period-close/schema.js';
import type { BankMatchStageRequestBody } from './bank-match/schema.js';
import type { JournalEntryStageInput } from './journal-entry/schema.js';
import type { RevertStageInput } from './revert/schema.js';
import type { ApprovalPolicyStageInput } from './approval-policy/schema.js';
import type { KindModule } from './kind-module.js';
import type { PlanContext } from '../domain/plan-context.js';
import type { ApprovalSubject } from '../domain/approval-policy.js';
import { resolvedAmount, type OperationAmount } from './operation-amount.js';
import { bankReconcile } from './bank-reconcile/wire.js';
import { inboxDuplicatesResolve } from './inbox-duplicates-resolve/wire.js';
import { ledgerLinkRepair } from './ledger-link-repair/wire.js';
import { ledgerReversal } from './ledger-reversal/wire.js';
import { statementImport } from './statement-import/wire.js';
import { periodClose } from './period-close/wire.js';
import { bankMatch } from './bank-match/wire.js';
import { journalEntry } from './journal-entry/wire.js';
import { revert } from './revert/wire.js';
import { approvalPolicy } from './approval-policy/wire.js';

export type { KindModule, StagedKind };
export { STAGED_KINDS };

export const KINDS: { readonly [K in StagedKind]: KindModule<K> } = {
  bank_reconcile: bankReconcile,
  ledger_link_repair: ledgerLinkRepair,
  ledger_reversal: ledgerReversal,
  inbox_duplicates_resolve: inboxDuplicatesResolve,
  statement_import: statementImport,
  period_close: periodClose,
  bank_match: bankMatch,
  journal_entry: journalEntry,
  revert,
  approval_policy: approvalPolicy,
};

/** A map with an entry for every kind: one without fails tsc, naming the kind. */
type EveryKind<T extends Record<StagedKind, unknown>> = T;

/** The validated input each kind's staging job carries (types derived from its Ajv schemas; shared/queue/stage-jobs.ts). */
export type KindInputs = EveryKind<{
  bank_reconcile: ReconcileStageRequestBody;
  ledger_link_repair: LinkRepairStageRequestBody;
  ledger_reversal: ReversalStageInput;
  inbox_duplicates_resolve: InboxResolveStageInput;
  statement_import: StatementImportStageInput;
  period_close: PeriodCloseStageInput;
  bank_match: BankMatchStageRequestBody;
  journal_entry: JournalEntryStageInput;
  revert: RevertStageInput;
  approval_policy: ApprovalPolicyStageInput;
}>;

/** The staging routes, in the order of STAGED_KINDS. */
export const KIND_ROUTES: readonly RouteContract[] = STAGED_KINDS.map((kind) => KINDS[kind].route);

/** Every kind's own refusals, in the order of STAGED_KINDS (a job's poll can answer any of them). */
export const KIND_REFUSALS: readonly ErrorCode[] = STAGED_KINDS.flatMap((kind) => KINDS[kind].refusals);

/** The kind whose staging call an operation name is (`bank_reconcile.stage` → bank_reconcile), or null. */
export function kindOfOperation(operation: string | null): StagedKind | null {
  return STAGED_KINDS.find((kind) => KINDS[kind].route.operation === operation) ?? null;
}

/** The short summary a reviewer reads first (docs/guide/review-page.md "Views"): the counts and amounts of a plan. */
export function stagedSummary(kind: StagedKind, plan: unknown): Record<string, unknown> {
  return KINDS[kind].summary(plan);
}

/** The operation's amount (docs/reference/http-api.md "Amount of each kind"): its kind's, in the base currency where the kind has none. */
export function stagedAmount(
  kind: StagedKind,
  plan: unknown,
  context: PlanContext,
  baseCurrency: string,
): OperationAmount {
  return resolvedAmount(KINDS[kind].amount(plan, context), baseCurrency);
}

/**
 * What an operation is for the approval policy (docs/design/staged-lifecycle.md "Approval policies"): its kind,
 * the kind a revert reverts (kept in its context), its amount, its creator, and whether its kind module marks it
 * as a governance change. Pure.
 */
export function approvalSubject(
  op: { kind: StagedKind; plan: unknown; context: PlanContext; created_by: string },
  baseCurrency: string,
): ApprovalSubject {
  const kind = op.context.reverted?.kind;
  const reverted =
    kind !== undefined && (STAGED_KINDS as readonly string[]).includes(kind) ? (kind as StagedKind) : null;
  return {
    kind: op.kind,
    reverts_kind: reverted,
    amount_minor: stagedAmount(op.kind, op.plan, op.context, baseCurrency).amount_minor,
    created_by: op.created_by,
    // A revert of a governance change changes the governance too.
    governance: KINDS[op.kind].governance === true || (reverted !== null && KINDS[reverted].governance === true),
  };
}
