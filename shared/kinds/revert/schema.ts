// Path and body of POST /api/v1/cli/staged-operations/{id}/revert/stage
// (docs/design/staged-lifecycle.md "Reverts"): the operation to revert, and an
// optional note.
import type { FromSchema } from 'json-schema-to-ts';
import { isoDate, text } from '../../schemas/common.js';

/** The path's operation: a staged operation id, as the review calls take it (shared/schemas/staged-operations.ts). */
export const revertStageParamsSchema = {
  title: 'Staged operation path',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 68, pattern: '^stg_[A-Za-z0-9]{1,64}$' } },
} as const;

export const revertStageRequestSchema = {
  title: 'Revert stage request',
  type: 'object',
  additionalProperties: false,
  properties: {
    note: { ...text(1000), minLength: 1, description: 'Why; kept with the staged revert (its `input`).' },
    reversal_date: {
      ...isoDate,
      description:
        "A journal entry's revert only: the date of the reversing entry; default today (UTC). Must be on or after the entry date and after the lock date. Other kinds ignore it.",
    },
  },
} as const;

export type RevertStageParams = FromSchema<typeof revertStageParamsSchema>;
export type RevertStageRequestBody = FromSchema<typeof revertStageRequestSchema>;
/** What the job gets: the path's operation id and the body. */
export type RevertStageInput = RevertStageParams & RevertStageRequestBody;
