// The contract between API and worker for staging calls: what a job carries
// and what it returns. The API never computes a plan; it maps a JobOutcome to
// an HTTP answer.
import type { ErrorBody } from '../errors.js';
import type { Warning } from '../envelope.js';

export const STAGE_QUEUE = 'stage';

export const STAGE_OPERATIONS = [
  'ledger_reversal.stage', 'ledger_link_repair.stage', 'bank_reconcile.stage',
  // The review and apply of a staged operation (docs/staged-lifecycle.md): same queue, same answer path.
  'staged_operations.approve', 'staged_operations.reject', 'staged_operations.apply',
] as const;
export type StageOperation = (typeof STAGE_OPERATIONS)[number];

export interface StageJobData {
  operation: StageOperation;
  request_id: string;
  org_id: string;
  actor: string;
  /** When the API accepted the request; "today" defaults derive from it, so a retried job decides the same way. */
  requested_at: string;
  idempotency_key: string | null;
  input: Record<string, unknown>;
}

export interface JobOutcome {
  http_status: number;
  operation: string;
  data?: unknown;
  warnings?: Warning[];
  error?: ErrorBody;
  /** A Location header for the answer (a new staged operation). */
  location?: string;
}

/** Retries for unexpected failures (a lost database connection); domain refusals are results, not failures. */
export const STAGE_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
