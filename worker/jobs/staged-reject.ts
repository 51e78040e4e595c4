// POST /staged-operations/{id}/reject as a job: staged | approved → rejected,
// every scope lock released at once (docs/staged-lifecycle.md).
import type { JobOutcome } from '../staged/lifecycle-outcome.js';
import type { JobContext } from '../job-context.js';
import { runReviewTransition } from '../staged/transition.js';

export function rejectStagedOperation(ctx: JobContext): Promise<JobOutcome> {
  return runReviewTransition(ctx, 'reject', 'rejected');
}
