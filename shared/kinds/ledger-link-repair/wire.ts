// The link repair kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { LinkRepairPlan } from '../../domain/link-repair-plan.js';
import { linkRepairStageRequestSchema } from './schema.js';
import {
  orDryRun,
  repairDryRunSchema,
  repairResultSchema,
  repairStagedResultSchema,
} from '../../schemas/staging-results.js';
import { stagingQuerySchema } from '../../schemas/staging-query.js';
import {
  AUTHENTICATED,
  BODY,
  STAGING,
  DRY_RUN_200,
  STAGED_HEADERS,
  PENDING,
  unique,
} from '../../contract/route-parts.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { sumAbsMinor } from '../operation-amount.js';

const REPAIR_ERRORS: ErrorCode[] = ['not_found'];

export const ledgerLinkRepair: KindModule<'ledger_link_repair'> = {
  kind: 'ledger_link_repair',
  route: {
    method: 'post',
    path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
    operation: 'ledger_link_repair.stage',
    summary: 'Stage a FIFO repair of ledger ↔ bank links',
    description:
      "Re-links one counterparty's bank transactions on one account to its open ledger entries, oldest first, and stages the difference for review.",
    tags: ['staging'],
    auth: { scope: 'bank:stage' },
    query: stagingQuerySchema,
    body: { schema: linkRepairStageRequestSchema, required: true },
    staging: true,
    success: {
      200: {
        description: `\`noop\` (the links already follow FIFO), \`blocked\` (see \`blockers\`; nothing staged), or the very same plan already pending (\`staged\`, warning \`already_staged\`). ${DRY_RUN_200}`,
        data: orDryRun(repairResultSchema, repairDryRunSchema),
        headers: STAGED_HEADERS,
      },
      201: {
        description: 'A new staged operation (its URL in `Location`).',
        data: repairStagedResultSchema,
        headers: STAGED_HEADERS,
      },
      202: PENDING,
    },
    errors: unique([...AUTHENTICATED, 'forbidden', ...BODY, ...STAGING, ...REPAIR_ERRORS]),
    followsJob: true,
  },
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
