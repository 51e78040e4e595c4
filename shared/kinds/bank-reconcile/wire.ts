// The bank reconciliation kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { ReconciliationPlan } from './plan.js';
import { reconcileStageRequestSchema } from './schema.js';
import { orDryRun, reconcileDryRunSchema, reconcileResultSchema } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';

const RECONCILE_ERRORS: ErrorCode[] = [
  'not_found',
  'currency_mismatch',
  'statement_before_last_reconciliation',
  'period_locked',
  'unknown_transactions',
  'already_reconciled',
  'transaction_after_statement_end',
  'unmatched_transactions',
  'out_of_balance',
  'amount_out_of_range',
];

export const bankReconcile: KindModule<'bank_reconcile'> = {
  kind: 'bank_reconcile',
  route: stagingRoute({
    operation: 'bank_reconcile.stage',
    summary: 'Stage a bank reconciliation',
    description:
      "Checks a bank statement against the account's transactions and stages the reconciliation for review. Nothing in the books changes until it is approved and applied.",
    scope: 'bank:stage',
    body: { schema: reconcileStageRequestSchema, required: true },
    answered: {
      description:
        'The very same plan was already pending for this account: that operation, with the warning `already_staged`.',
      data: orDryRun(reconcileResultSchema, reconcileDryRunSchema),
    },
    created: {
      data: reconcileResultSchema,
      warnings: 'A warning `left_out_unreconciled` names unreconciled transactions the statement leaves out.',
    },
    refusals: RECONCILE_ERRORS,
  }),
  refusals: RECONCILE_ERRORS,
  summary: (plan) => {
    const p = plan as ReconciliationPlan;
    return {
      transactions: p.transactions.length,
      opening_balance_minor: p.opening_balance_minor,
      cleared_total_minor: p.cleared_total_minor,
      closing_balance_minor: p.closing_balance_minor,
      left_out: p.left_out.count,
    };
  },
  // Σ|amount| of the transactions it reconciles, in the statement's currency.
  amount: (plan) => {
    const p = plan as ReconciliationPlan;
    return { amount_minor: sumAbsMinor(p.transactions.map((t) => t.amount_minor)), currency: p.statement.currency };
  },
  cli: { label: 'bank reconciliation' },
  mcp: {
    name: 'stage_bank_reconciliation',
    title: 'Stage a bank reconciliation',
    description:
      'Checks a bank statement (end date, closing balance in integer minor units, currency) against the listed bank transactions of one account ' +
      `and stages the reconciliation for review. ${NOTHING_CHANGES} ${OUTCOMES} ${KEY}`,
  },
};
