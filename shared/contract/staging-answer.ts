// The answer of a staging, review or apply call in the domain's words
// (docs/reference/http-api.md "Result shapes"): what a job stores in job_results and
// api/outcome.ts turns into HTTP.
import type { ErrorCode } from '../errors.js';
import type { Warning } from '../warnings.js';

/**
 * What a finished staging job answers, in the domain's words: the outcome and
 * the contract's result `data` (docs/reference/http-api.md "Result shapes"). HTTP
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
  /** A review or apply step that succeeded: 200 with the operation. */
  | { operation: string; outcome: 'done'; data: Record<string, unknown>; warnings: Warning[] }
  /** A dry run (docs/reference/http-api.md §6.6): 200 with the plan a staging would stage, nothing stored. */
  | { operation: string; outcome: 'dry_run'; data: Record<string, unknown>; warnings: Warning[] }
  | { operation: string; outcome: 'refused'; code: ErrorCode; details: Record<string, unknown> };
