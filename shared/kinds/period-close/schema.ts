// Body of POST /api/v1/cli/periods/close/stage (docs/design/staged-lifecycle.md "Closed periods").
import type { FromSchema } from 'json-schema-to-ts';
import { isoDate, text } from '../../schemas/common.js';

export const periodCloseStageRequestSchema = {
  title: 'Period close stage request',
  type: 'object',
  additionalProperties: false,
  properties: {
    through: {
      ...isoDate,
      description:
        "The last day of the period to close: after the organisation's lock date and before today (UTC). Applying the close makes it the lock date.",
    },
    note: { ...text(500), description: 'Why the period is closed; null in the plan when absent.' },
  },
  required: ['through'],
} as const;

/** The body once it has passed `periodCloseStageRequestSchema`: what the job gets. */
export type PeriodCloseStageInput = FromSchema<typeof periodCloseStageRequestSchema>;
