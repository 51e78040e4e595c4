// POST /staged-operations/{id}/reject as a job: staged | approved → rejected,
// every plan lock released at once (docs/design/staged-lifecycle.md), on the
// lifecycle frame (worker/operation/lifecycle-job.ts).
import { lifecycleJob } from '../operation/lifecycle-job.js';

export const rejectStagedOperation = lifecycleJob({ action: 'reject', target: 'rejected' });
