// The revert kind as the wire knows it (docs/design/architecture.md "Kinds";
// docs/design/staged-lifecycle.md "Reverts"): its staging call's route entry,
// its plan's summary, its amount (the reverted operation's), its CLI label and
// MCP tool.
import type { ErrorCode } from '../../errors.js';
import { dryRunResultSchema, orDryRun, planHash, stagedFields } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';
import type { RevertPlan } from './plan.js';
import { revertStageParamsSchema, revertStageRequestSchema } from './schema.js';

const REVERT_ERRORS: ErrorCode[] = [
  'not_found',
  'route_not_found',
  'not_applied',
  'not_revertible',
  'already_reverted',
  'not_latest_reconciliation',
  'changed_since_apply',
  'reversal_before_entry',
  'period_locked',
];

const str = { type: 'string' } as const;
const fields = { type: 'object', description: 'Record fields, as stored.' } as const;
const object = (properties: Record<string, object>, title?: string) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...(title ? { title } : {}),
});
const collection = {
  enum: [
    'bank_accounts',
    'bank_transactions',
    'bank_links',
    'ledger_entries',
    'inbox_documents',
    'duplicate_dismissals',
    'approval_policies',
  ],
};

export const revertPlanSchema = object(
  {
    reverts: { ...str, description: 'The reverted staged operation.' },
    reverts_kind: str,
    changes: {
      type: 'array',
      description:
        'Every record the revert writes, in order: `update` to `set` (its value now in `before`) at `version` (its version now), `delete` of `doc` at `version`, `insert` of `doc` (a record the reverted apply deleted, back with a version above the one it had).',
      items: {
        oneOf: [
          object({
            action: { const: 'update' },
            collection,
            id: str,
            version: { type: 'integer' },
            set: fields,
            before: fields,
          }),
          object({ action: { const: 'delete' }, collection, id: str, version: { type: 'integer' }, doc: fields }),
          object({ action: { const: 'insert' }, collection, id: str, doc: fields }),
        ],
      },
    },
  },
  'RevertPlan',
);

const revertResultSchema = object(
  { ...stagedFields, plan: revertPlanSchema, plan_hash: planHash },
  'RevertStageResult',
);
const revertDryRunSchema = dryRunResultSchema('RevertDryRunResult', revertPlanSchema);

export const revert: KindModule<'revert'> = {
  kind: 'revert',
  route: stagingRoute({
    operation: 'revert.stage',
    summary: 'Stage the revert of an applied operation',
    description:
      'Plans writing back every record the operation\'s apply wrote, as it was before, and stages it for review (docs/design/staged-lifecycle.md "Reverts"). ' +
      'Any valid token may call it; the job then requires the scope that stages the reverted kind (`bank:stage` for a reconciliation, repair, match or import, `ledger:stage` for a journal entry, `inbox:stage` for a duplicate resolution, `policy:stage` for an approval policy change) and answers 403 `forbidden` without it. ' +
      'A journal entry is reversed by a reversing entry dated `reversal_date` (default today, UTC). The body is optional.',
    scope: null,
    pathParams: { schema: revertStageParamsSchema },
    body: { schema: revertStageRequestSchema, required: false },
    answered: {
      description:
        'The very same revert was already pending for this operation: that operation, with the warning `already_staged`.',
      data: orDryRun(revertResultSchema, revertDryRunSchema),
    },
    created: { data: revertResultSchema },
    refusals: REVERT_ERRORS,
  }),
  refusals: REVERT_ERRORS,
  summary: (plan) => {
    const p = plan as RevertPlan;
    const count = (action: string) => p.changes.filter((c) => c.action === action).length;
    return {
      reverts: p.reverts,
      reverts_kind: p.reverts_kind,
      updates: count('update'),
      inserts: count('insert'),
      deletes: count('delete'),
    };
  },
  // The reverted operation's amount, kept in the context at staging (a revert moves back what it moved).
  amount: (_plan, context) => ({
    amount_minor: context.reverted?.amount_minor ?? 0,
    currency: context.reverted?.currency ?? null,
  }),
  cli: { label: 'revert' },
  mcp: {
    name: 'stage_revert',
    title: 'Stage the revert of an applied operation',
    description:
      'Plans giving the books back as they were before one applied staged operation (id, its stg_… id): every record its apply wrote is written back, ' +
      'and stages that for review like any other change. Reconciliations, link repairs, bank matches, statement imports, duplicate resolutions, journal entries and approval policy changes can be reverted ' +
      '(a journal entry by a reversing entry dated reversal_date, default today; a policy change by the policy it replaced, as a new version); ' +
      `a ledger reversal, a period close or a revert cannot (not_revertible). ${NOTHING_CHANGES} ${OUTCOMES} An operation not applied is refused with not_applied, ` +
      'one already reverted with already_reverted, one whose records changed since its apply with changed_since_apply (their ids), ' +
      `a reconciliation with a later one applied with not_latest_reconciliation, a locked period with period_locked. ${KEY}`,
  },
  reverts: (plan) => (plan as RevertPlan).reverts,
};
