// The link repair kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { LinkRepairPlan } from './plan.js';
import { linkRepairStageRequestSchema } from './schema.js';
import {
  orDryRun,
  repairDryRunSchema,
  repairResultSchema,
  repairStagedResultSchema,
} from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import { sumAbsMinor } from '../operation-amount.js';

const REPAIR_ERRORS: ErrorCode[] = ['not_found', 'repair_too_large'];

export const ledgerLinkRepair: KindModule<'ledger_link_repair'> = {
  kind: 'ledger_link_repair',
  route: stagingRoute({
    operation: 'ledger_link_repair.stage',
    summary: 'Stage a FIFO repair of ledger ↔ bank links',
    description:
      "Re-links one counterparty's bank transactions on one account to its open ledger entries, oldest first, and stages the difference for review.",
    scope: 'bank:stage',
    body: { schema: linkRepairStageRequestSchema, required: true },
    answered: {
      description:
        '`noop` (the links already follow FIFO), `blocked` (see `blockers`; nothing staged), or the very same plan already pending (`staged`, warning `already_staged`).',
      data: orDryRun(repairResultSchema, repairDryRunSchema),
    },
    created: { data: repairStagedResultSchema },
    refusals: REPAIR_ERRORS,
  }),
  refusals: REPAIR_ERRORS,
  summary: (plan) => {
    return { ...(plan as LinkRepairPlan).summary };
  },
  // Σ of the moved, new and released link amounts, in the bank account's currency
  // (the plan names none; the context read at staging does, where it was kept).
  amount: (plan, context) => ({
    amount_minor: sumAbsMinor((plan as LinkRepairPlan).actions.map((a) => a.amount_minor)),
    currency: context.bank_account?.currency ?? null,
  }),
  cli: { label: 'link repair', noop: 'the links already follow FIFO' },
  mcp: {
    name: 'stage_ledger_link_repair',
    title: 'Stage a FIFO repair of ledger ↔ bank links',
    description:
      "Re-links one counterparty's bank transactions on one bank account to its open ledger entries, oldest first (FIFO), and stages the moves, links " +
      `and unlinks for review. ${NOTHING_CHANGES} Besides "staged" and "pending", the outcome may be "noop" (the links already follow FIFO; nothing staged) ` +
      `or "blocked" (blockers says why; nothing staged). ${OUTCOMES} ${KEY}`,
  },
};
