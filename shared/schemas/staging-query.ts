// The query string of every staging call (docs/reference/http-api.md §6.6):
// only `dry_run`, spelled `true` or `false`; anything else is refused with its
// pointer, like the query of every other route.
export const stagingQuerySchema = {
  title: 'Staging query',
  type: 'object',
  additionalProperties: false,
  properties: {
    dry_run: {
      enum: ['true', 'false'],
      description:
        '`true`: compute and answer the plan without staging it (nothing stored, no lock, no Idempotency-Key needed). Default `false`.',
    },
  },
} as const;

export interface StagingQuery {
  dry_run?: 'true' | 'false';
}
