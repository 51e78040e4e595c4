// POST /staged-operations/{id}/approve as a job: staged → approved (docs/design/staged-lifecycle.md).
import type { StageAnswer } from '../../shared/queue/stage-jobs.js';
import type { JobContext } from '../job-context.js';
import { runReviewTransition } from '../staged/transition.js';

export function approveStagedOperation(ctx: JobContext): Promise<StageAnswer> {
  return runReviewTransition(ctx, 'approve', 'approved');
}
