// What a review or apply job answers, and how it becomes the one StageAnswer
// every job stores (shared/queue/stage-jobs.ts): a success is `done`, an
// error body is `refused` with its code; api/outcome.ts picks the status.
import type { ErrorBody } from '../../shared/errors.js';
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import type { Warning } from '../../shared/warnings.js';

export interface JobOutcome {
  operation: string;
  data?: unknown;
  warnings?: Warning[];
  error?: ErrorBody;
}

export function toStageAnswer(outcome: JobOutcome): StageAnswer {
  if (outcome.error) return { operation: outcome.operation, outcome: 'refused', code: outcome.error.code, details: outcome.error.details };
  return { operation: outcome.operation, outcome: 'done', data: (outcome.data ?? {}) as Record<string, unknown>, warnings: outcome.warnings ?? [] };
}
