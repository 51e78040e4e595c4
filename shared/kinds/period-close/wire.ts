// The period close kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { PeriodClosePlan } from './plan.js';
import { periodCloseStageRequestSchema } from './schema.js';
import { orDryRun, periodCloseDryRunSchema, periodCloseResultSchema } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';

// `pending_operation` is the staging path's too; here it also names the operations the new lock would refuse.
const PERIOD_CLOSE_ERRORS: ErrorCode[] = ['invalid_period', 'pending_operation'];

export const periodClose: KindModule<'period_close'> = {
  kind: 'period_close',
  route: stagingRoute({
    operation: 'period_close.stage',
    summary: 'Stage the close of a period',
    description:
      'Plans moving the organisation\'s lock date to `through` and stages it for review; applying it closes every day on or before `through` and stores the period with the hash of its records (docs/design/staged-lifecycle.md "Closed periods").',
    scope: 'policy:stage',
    body: { schema: periodCloseStageRequestSchema, required: true },
    answered: {
      description: 'The very same close was already pending: that operation, with the warning `already_staged`.',
      data: orDryRun(periodCloseResultSchema, periodCloseDryRunSchema),
    },
    created: { data: periodCloseResultSchema },
    refusals: PERIOD_CLOSE_ERRORS,
  }),
  refusals: PERIOD_CLOSE_ERRORS,
  summary: (plan) => {
    const p = plan as PeriodClosePlan;
    return {
      through: p.through,
      lock_date_before: p.lock_date_before,
      entries: p.entries,
      bank_transactions: p.bank_transactions,
    };
  },
  // Closing a period moves no money.
  amount: () => ({ amount_minor: 0, currency: null }),
  governance: true,
  cli: { label: 'period close' },
  mcp: {
    name: 'stage_period_close',
    title: 'Stage the close of a period',
    description:
      "Plans closing every day on or before through (YYYY-MM-DD): once applied, the organisation's lock date is through and nothing can be booked on or before it. " +
      `${NOTHING_CHANGES} ${OUTCOMES} A through on or before the current lock date, or not before today (UTC), is refused with invalid_period; ` +
      `pending operations that would book in the period are named by pending_operation (details.operation_ids). ${KEY} ` +
      'Only offered when a person started this server with --allow-review: closing a period is a governance change.',
    gate: 'review',
  },
};
