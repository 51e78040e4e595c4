// POST /staged-operations/{id}/reject as a job: staged | approved → rejected,
// every scope lock released at once (docs/design/staged-lifecycle.md).
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import type { JobContext } from '../job-context.js';
import { runReviewTransition } from '../staged/transition.js';

export function rejectStagedOperation(ctx: JobContext): Promise<StageAnswer> {
  return runReviewTransition(ctx, 'reject', 'rejected');
}
