// POST /staged-operations/{id}/approve as a job: staged → approved (docs/staged-lifecycle.md).
import type { JobOutcome } from '../staged/lifecycle-outcome.js';
import type { JobContext } from '../job-context.js';
import { runReviewTransition } from '../staged/transition.js';

export function approveStagedOperation(ctx: JobContext): Promise<JobOutcome> {
  return runReviewTransition(ctx, 'approve', 'approved');
}
