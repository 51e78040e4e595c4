// The contract between API and worker for staging calls (docs/architecture.md):
// one map from each operation name to the input its job carries, like BullMQ's
// typed Queue<Data, Result, Name>. The API enqueues with it, the worker
// dispatches on it; the API never computes a plan, the worker never builds an
// HTTP answer.
import type { ErrorCode } from '../errors.js';
import type { LinkRepairStageRequestBody } from '../schemas/link-repair-stage.js';
import type { ReconcileStageRequestBody } from '../schemas/reconcile-stage.js';
import type { ReversalStageInput } from '../schemas/reversal-stage.js';
import type { Warning } from '../warnings.js';

export const STAGE_QUEUE = 'stage';

/** Operation name → the validated input its job carries (types derived from the Ajv schemas). */
export interface StageJobInputs {
  'ledger_reversal.stage': ReversalStageInput;
  'ledger_link_repair.stage': LinkRepairStageRequestBody;
  'bank_reconcile.stage': ReconcileStageRequestBody;
}

export type StageOperation = keyof StageJobInputs;

export interface StageJobData<Op extends StageOperation = StageOperation> {
  operation: Op;
  request_id: string;
  org_id: string;
  actor: string;
  /** When the API accepted the request; "today" defaults derive from it, so a retried job decides the same way. */
  requested_at: string;
  idempotency_key: string | null;
  input: StageJobInputs[Op];
}

/** Job data narrowed by its operation: `switch (data.operation)` narrows `data.input`. */
export type AnyStageJobData = { [Op in StageOperation]: StageJobData<Op> }[StageOperation];

/**
 * What a finished staging job answers, in the domain's words: the outcome and
 * the contract's result `data` (docs/http-api.md "Result shapes"). HTTP
 * statuses and headers are the API's business (api/outcome.ts).
 */
export type StageAnswer =
  | {
      operation: string;
      outcome: 'staged';
      /** false when the very same plan was already pending and that operation is answered. */
      created: boolean;
      staged_operation_id: string;
      data: Record<string, unknown>;
      warnings: Warning[];
    }
  | { operation: string; outcome: 'noop' | 'blocked'; data: Record<string, unknown>; warnings: Warning[] }
  | { operation: string; outcome: 'refused'; code: ErrorCode; details: Record<string, unknown> };

/** Retries for unexpected failures (a lost database connection); domain refusals are answers, not failures. */
export const STAGE_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
