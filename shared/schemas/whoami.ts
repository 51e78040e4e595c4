// GET /api/v1/cli/whoami (docs/guide/review-page.md): who a token is, so that a
// client (the review page) shows only the actions the token may take.
import { TOKEN_SCOPES } from '../domain/token-scopes.js';

export const whoamiSchema = {
  title: 'Who am I',
  type: 'object',
  additionalProperties: false,
  required: ['org_id', 'actor', 'scopes', 'agent'],
  properties: {
    org_id: { type: 'string' },
    actor: { type: 'string' },
    scopes: { type: 'array', items: { enum: [...TOKEN_SCOPES] }, description: 'The scopes the token carries.' },
    agent: {
      type: 'boolean',
      description:
        "Whether the token's actor counts as an agent for approval policies: the token was created with `--agent`, or the actor's name starts with `agent:`.",
    },
    require_distinct_approver: {
      type: 'boolean',
      description:
        "Whether the organisation refuses an approval by the operation's own creator (so a client need not offer it).",
    },
  },
} as const;
