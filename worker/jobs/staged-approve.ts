// POST /staged-operations/{id}/approve as a job: staged → approved (docs/design/staged-lifecycle.md),
// on the lifecycle frame (worker/operation/lifecycle-job.ts).
import { lifecycleJob } from '../operation/lifecycle-job.js';

export const approveStagedOperation = lifecycleJob({ action: 'approve', target: 'approved' });
