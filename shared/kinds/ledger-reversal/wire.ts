// The ledger reversal kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { ReversalPlan } from './plan.js';
import { reversalStageParamsSchema, reversalStageRequestSchema } from './schema.js';
import { orDryRun, reversalDryRunSchema, reversalResultSchema } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';

const REVERSAL_ERRORS: ErrorCode[] = [
  'not_found',
  'route_not_found',
  'already_reversed',
  'entry_is_reversal',
  'reconciled_links',
  'reversal_before_entry',
  'period_locked',
];

export const ledgerReversal: KindModule<'ledger_reversal'> = {
  kind: 'ledger_reversal',
  route: stagingRoute({
    operation: 'ledger_reversal.stage',
    summary: 'Stage the reversal of a ledger entry',
    description:
      "Plans the reversing entry and the removal of the entry's bank links, and stages them for review. The body is optional.",
    scope: 'ledger:stage',
    pathParams: { schema: reversalStageParamsSchema },
    body: { schema: reversalStageRequestSchema, required: false },
    answered: {
      description:
        'The very same plan was already pending for this entry: that operation, with the warning `already_staged`.',
      data: orDryRun(reversalResultSchema, reversalDryRunSchema),
    },
    created: { data: reversalResultSchema },
    refusals: REVERSAL_ERRORS,
  }),
  refusals: REVERSAL_ERRORS,
  summary: (plan) => {
    const p = plan as ReversalPlan;
    return {
      ledger_entry_id: p.ledger_entry_id,
      unlinks: p.actions.length,
      unlinked_minor: p.actions.reduce((s, a) => s + a.amount_minor, 0),
    };
  },
  // The reversed entry's debits: Σ debit_minor of its lines (the reversing entry's credits).
  amount: (plan) => {
    const entry = (plan as ReversalPlan).reversing_entry;
    return { amount_minor: sumAbsMinor(entry.lines.map((l) => l.credit_minor)), currency: entry.currency };
  },
  cli: { label: 'ledger reversal' },
  mcp: {
    name: 'stage_ledger_reversal',
    title: 'Stage the reversal of a ledger entry',
    description:
      'Plans the reversing entry of one ledger entry (entry_id) and the removal of its bank links, and stages them for review. ' +
      `${NOTHING_CHANGES} ${OUTCOMES} An entry that is already reversed, is itself a reversal, or lies in a locked period is refused with that code. ${KEY}`,
  },
};
