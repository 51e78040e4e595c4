// Path and body of POST /api/v1/cli/bookkeeping/inbox/duplicates/{group_id}/resolve/stage
// (docs/reference/http-api.md §10.1): one of two
// resolutions, each with its own fields; anything else is refused.
import type { FromSchema } from 'json-schema-to-ts';
import { id, text } from '../../schemas/common.js';

export const groupIdSchema = {
  type: 'string',
  maxLength: 20,
  pattern: '^grp_[0-9a-f]{16}$',
  description: 'A duplicate group id as the overview lists it.',
} as const;

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
  additionalProperties: false,
  required: ['resolution'],
  properties: {
    resolution: {
      enum: ['archive_duplicates', 'not_duplicates'],
      description:
        '`archive_duplicates`: keep one document (`keep_document_id`), archive every other member as its duplicate. ' +
        '`not_duplicates`: the members are not duplicates of each other and are never grouped together again.',
    },
    keep_document_id: { ...id, description: 'With `archive_duplicates` only (required there): the member kept.' },
    note,
  },
  // keep_document_id exactly with archive_duplicates.
  oneOf: [
    {
      type: 'object',
      required: ['resolution', 'keep_document_id'],
      properties: { resolution: { const: 'archive_duplicates' }, keep_document_id: id },
    },
    {
      type: 'object',
      required: ['resolution'],
      properties: { resolution: { const: 'not_duplicates' }, keep_document_id: false },
    },
  ],
} as const;

export type InboxResolveStageRequestBody = FromSchema<typeof inboxResolveStageRequestSchema>;
export type InboxResolveStageParams = FromSchema<typeof inboxResolveStageParamsSchema>;
/** What the job gets: the path's group id and the body. */
export type InboxResolveStageInput = InboxResolveStageParams & InboxResolveStageRequestBody;
