// The duplicate resolution kind as the wire knows it (docs/design/architecture.md "Kinds"):
// its staging call's route entry, its plan's summary, its CLI label and MCP tool.
import type { ErrorCode } from '../../errors.js';
import type { InboxResolvePlan } from './plan.js';
import { inboxResolveStageParamsSchema, inboxResolveStageRequestSchema } from './schema.js';
import { inboxResolveDryRunSchema, inboxResolveResultSchema, orDryRun } from '../../schemas/staging-results.js';
import { NOTHING_CHANGES, OUTCOMES, KEY } from '../mcp-text.js';
import type { KindModule } from '../kind-module.js';
import { stagingRoute } from '../staging-route.js';

const INBOX_RESOLVE_ERRORS: ErrorCode[] = ['not_found', 'route_not_found', 'stale_group', 'keep_document_not_member'];

export const inboxDuplicatesResolve: KindModule<'inbox_duplicates_resolve'> = {
  kind: 'inbox_duplicates_resolve',
  route: stagingRoute({
    operation: 'inbox_duplicates_resolve.stage',
    summary: 'Stage the resolution of an inbox duplicate group',
    description:
      'Plans either archiving every member but the kept one (`archive_duplicates`) or recording that the members are not duplicates (`not_duplicates`), for the group as it is now, and stages it for review.',
    scope: 'inbox:stage',
    pathParams: { schema: inboxResolveStageParamsSchema },
    body: { schema: inboxResolveStageRequestSchema, required: true },
    answered: {
      description:
        'The very same plan was already pending for this group: that operation, with the warning `already_staged`.',
      data: orDryRun(inboxResolveResultSchema, inboxResolveDryRunSchema),
    },
    created: { data: inboxResolveResultSchema },
    refusals: INBOX_RESOLVE_ERRORS,
  }),
  refusals: INBOX_RESOLVE_ERRORS,
  summary: (plan) => {
    const p = plan as InboxResolvePlan;
    return {
      group_id: p.group_id,
      resolution: p.resolution,
      members: p.member_ids.length,
      archives: p.archive_document_ids.length,
    };
  },
  // Archiving documents moves no money.
  amount: () => ({ amount_minor: 0, currency: null }),
  cli: { label: 'duplicate resolution' },
  mcp: {
    name: 'stage_inbox_duplicates_resolution',
    title: 'Stage the resolution of an inbox duplicate group',
    description:
      'Resolves one duplicate group of the receipts inbox (group_id as list_inbox_duplicates names it): resolution "archive_duplicates" with keep_document_id ' +
      'archives every other member as a duplicate of the kept one (documents are never deleted); "not_duplicates" records that the members are not duplicates, ' +
      `so they are never grouped together again. ${NOTHING_CHANGES} ${OUTCOMES} A group whose members changed since it was listed is refused with stale_group ` +
      `(list again); an unknown group with not_found; a keep_document_id outside the group with keep_document_not_member. ${KEY}`,
  },
};
