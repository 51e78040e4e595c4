// The contract between API and worker for reads that compute (the inbox
// duplicate overview, the counterparty list and the trial balance of docs/reference/book-reads.md). Not staging: no idempotency key, no staged operation,
// no stored job result. Reads have their own queue so that a burst of them
// never delays staging jobs, and the worker runs them with their own
// concurrency. The API waits for the answer; if it gives up, the job's
// deadline makes the worker skip it rather than compute for nobody.
import type {
  CounterpartyList,
  GroupPage,
  GroupPosition,
  MatchSuggestionList,
  TrialBalance,
} from '../contract/reads.js';
import type { PeriodCheck } from '../schemas/periods.js';

export const READ_QUEUE = 'read';

export const READ_OPERATIONS = [
  'inbox_duplicates.list',
  'counterparties.list',
  'periods.show',
  'ledger.trial_balance',
  'books.export',
  'match_suggestions.list',
] as const;
export type ReadOperation = (typeof READ_OPERATIONS)[number];

export interface InboxDuplicatesListInput {
  limit: number;
  min_confidence: number | null;
  after: GroupPosition | null;
}

/** The account was found in the organisation by the API before the job was added. */
export interface CounterpartiesListInput {
  bank_account_id: string;
  /**
   * The account's currency, read by the API with the account: only entries in
   * it count (docs/reference/book-reads.md). Optional for a job added by an
   * API older than the field: the worker then reads the account.
   */
  currency?: string;
  /** Continue after this counterparty id (from the cursor); null: the first page. */
  after: string | null;
  limit: number;
}

/** The day the balance is taken at (the API fills in today, UTC, when the request names none). */
export interface TrialBalanceInput {
  as_of: string;
}

/** The books export's format and last day (null: every record). */
export interface BooksExportInput {
  format: 'hledger' | 'beancount';
  through: string | null;
}

/** Where the worker left the file (shared/storage/book-exports.ts): the API streams its parts. */
export interface BooksExportResult {
  export_id: string;
  parts: number;
  bytes: number;
  sha256: string;
}

/** The transaction was found in the organisation by the API before the job was added. */
export interface MatchSuggestionsInput {
  bank_transaction_id: string;
  limit: number;
}

interface ReadJobs {
  'inbox_duplicates.list': { input: InboxDuplicatesListInput; result: GroupPage };
  'counterparties.list': { input: CounterpartiesListInput; result: CounterpartyList };
  'ledger.trial_balance': { input: TrialBalanceInput; result: TrialBalance };
  'books.export': { input: BooksExportInput; result: BooksExportResult };
  /** The period was found closed by the API before the job was added; null if it is gone. */
  'periods.show': { input: { through: string }; result: PeriodCheck | null };
  'match_suggestions.list': { input: MatchSuggestionsInput; result: MatchSuggestionList };
}

export interface ReadJobData<Op extends ReadOperation = ReadOperation> {
  operation: Op;
  request_id: string;
  org_id: string;
  actor: string;
  /** After this instant nobody waits for the answer: a job not started by then is dropped. */
  deadline_at: string;
  input: ReadJobs[Op]['input'];
}

export type ReadJobResult<Op extends ReadOperation = ReadOperation> = ReadJobs[Op]['result'];

/**
 * One retry for an unexpected failure (a lost connection); a job is only ever
 * fetched by the request that added it, so results are kept briefly.
 */
export const READ_JOB_OPTIONS = {
  attempts: 2,
  backoff: { type: 'fixed', delay: 100 },
  removeOnComplete: { age: 300, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
} as const;
