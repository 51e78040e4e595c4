// Path and body of POST /api/v1/cli/bookkeeping/inbox/duplicates/{group_id}/resolve/stage
// (docs/reference/http-api.md "Resolve a duplicate group"): one of two
// resolutions, each with its own fields; anything else is refused.
import type { FromSchema } from 'json-schema-to-ts';
import { id, text } from './common.js';

export const groupIdSchema = { type: 'string', maxLength: 20, pattern: '^grp_[0-9a-f]{16}$', description: 'A duplicate group id as the overview lists it.' } as const;

export const inboxResolveStageParamsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { group_id: groupIdSchema },
  required: ['group_id'],
} as const;

const note = { ...text(1000), minLength: 1, description: 'Why; kept in the plan (null when absent).' } as const;

export const inboxResolveStageRequestSchema = {
  title: 'Inbox duplicates resolve stage request',
  type: 'object',
  oneOf: [
    {
      title: 'Archive the duplicates',
      type: 'object',
      additionalProperties: false,
      required: ['resolution', 'keep_document_id'],
      properties: {
        resolution: { const: 'archive_duplicates', description: 'Keep one document; every other member is archived as its duplicate.' },
        keep_document_id: { ...id, description: 'The member kept; must be a member of the group.' },
        note,
      },
    },
    {
      title: 'Not duplicates',
      type: 'object',
      additionalProperties: false,
      required: ['resolution'],
      properties: {
        resolution: { const: 'not_duplicates', description: 'The members are not duplicates of each other; they are never grouped together again.' },
        note,
      },
    },
  ],
} as const;

export type InboxResolveStageRequestBody = FromSchema<typeof inboxResolveStageRequestSchema>;
export type InboxResolveStageParams = FromSchema<typeof inboxResolveStageParamsSchema>;
/** What the job gets: the path's group id and the body. */
export type InboxResolveStageInput = InboxResolveStageParams & InboxResolveStageRequestBody;
