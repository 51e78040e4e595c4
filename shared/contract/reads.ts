// The `data` of the read answers the clients type (docs/reference/http-api.md), derived
// from the very schemas the API answers with. Types only: the review page
// (web/) imports them with `import type`.
import type { FromSchema } from 'json-schema-to-ts';
import type { inboxDuplicatesResponseSchema } from '../schemas/inbox-duplicates.js';
import type { CounterpartyRow, TransactionView } from '../domain/book-reads.js';
import type { Suggestion } from '../domain/match-suggestions.js';
import type { GroupPage, GroupPosition } from '../domain/duplicate-groups.js';
import type { TokenScope } from '../domain/token-scopes.js';
import type { TrialBalance } from '../domain/trial-balance.js';

/** The duplicate overview read job's page and position (shared/queue/read-jobs.ts), in the domain's words. */
export type { GroupPage, GroupPosition };

/** GET /api/v1/cli/ledger/trial-balance: the trial balance read job's answer, in the domain's words. */
export type { TrialBalance };

/** GET /api/v1/cli/whoami (shared/schemas/whoami.ts). */
export interface Whoami {
  org_id: string;
  actor: string;
  scopes: TokenScope[];
  require_distinct_approver?: boolean;
  /** The token's actor counts as an agent (its token was created with --agent, or its name starts with `agent:`). */
  agent?: boolean;
}

/**
 * One page of GET /api/v1/cli/counterparties as the read job answers it (shared/queue/read-jobs.ts), in the domain's
 * words: `last` is the counterparty the next page continues after (null on the last page); the API seals it as `next_cursor`.
 */
export interface CounterpartyList {
  /** Each row with the account's currency, which all its amounts are in. */
  items: Array<CounterpartyRow & { currency: string }>;
  last: string | null;
}

/** One page of GET /api/v1/cli/bookkeeping/inbox/duplicates. */
export type DuplicatePage = FromSchema<typeof inboxDuplicatesResponseSchema>;

/** GET /api/v1/cli/bank-transactions/{id}/match-suggestions: the read job's answer (shared/queue/read-jobs.ts). */
export interface MatchSuggestionList {
  transaction: TransactionView;
  /** What the transaction has left unlinked: |amount| − Σ its links (0 when fully linked). */
  remaining_minor: number;
  suggestions: Suggestion[];
  /** How many entries and documents were declined for it. */
  declined: number;
}
