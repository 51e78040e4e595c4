// GET /api/v1/cli/jobs/{job_id}: the answer of a staging call that outlived
// its wait. 202 while pending; once done, the operation's own envelope, as the
// original request would have had it. Only the actor who started the job sees
// it; anyone else gets 404. The answer is always the stored one (job_results):
// BullMQ's return value is only a pointer to it, but for a dry run, which stores only a big answer.
import { Router } from 'express';
import type { Queue } from 'bullmq';
import type { Db } from 'mongodb';
import { within } from '../../shared/dependency-errors.js';
import { AppError } from '../../shared/errors.js';
import type { AnyStageJobData, StageJobReturn } from '../../shared/queue/stage-jobs.js';
import { jobIdSchema } from '../../shared/schemas/staging-results.js';
import { findJobResult } from '../../shared/storage/job-results.js';
import { locals } from '../context.js';
import { parsePreferMinimal } from '../request-headers.js';
import { REDIS_DEADLINE_MS } from '../stage-handler.js';

import { errorToHttp, pendingToHttp, send, stageAnswerToHttp } from '../outcome.js';
import { mountRoute } from './mount.js';

/** The documented job-id pattern: anything else cannot be one of ours. */
const JOB_ID = new RegExp(jobIdSchema.pattern);

export function jobRoutes(db: Db, queue: Queue<AnyStageJobData, StageJobReturn>): Router {
  const router = Router();
  mountRoute(router, db, 'jobs.show', async (req, res) => {
    const auth = locals(res).auth!;
    const jobId = String(req.params.job_id);
    const notFound = new AppError('not_found', { details: { resource: 'Job', id: jobId } });
    if (!JOB_ID.test(jobId)) throw notFound;

    // `Prefer: return=minimal` as on the call that started the job (docs/reference/http-api.md §6.4).
    const lean = parsePreferMinimal(req.get('prefer'));
    if (lean) res.setHeader('Preference-Applied', 'return=minimal');
    const stored = await findJobResult(db, auth.org_id, jobId, undefined, { lean });
    if (stored) {
      if (stored.actor !== auth.actor) throw notFound;
      send(res, stageAnswerToHttp(stored.answer, stored.request_id));
      return;
    }
    // Bounded like the staging path's Redis reads: a silent (half-open) Redis answers 503, never hangs (docs/operating/reliability.md).
    const job = await within(queue.getJob(jobId), REDIS_DEADLINE_MS, 'Redis');
    if (!job || job.data.org_id !== auth.org_id || job.data.actor !== auth.actor) throw notFound;
    const state = await within(job.getState(), REDIS_DEADLINE_MS, 'Redis');
    // A dry run stores no answer: once done, it is the job's return value (docs/reference/http-api.md §6.6).
    const dryRun = state === 'completed' && job.data.dry_run ? job.returnvalue?.answer : undefined;
    if (dryRun) {
      send(res, stageAnswerToHttp(dryRun, job.data.request_id));
    } else if (state === 'failed') {
      // Failed for good without an answer stored (its worker died on the last attempt): final, not to be polled again.
      send(
        res,
        errorToHttp(
          job.data.operation,
          job.data.request_id,
          new AppError('job_failed', { details: { job_id: jobId } }),
        ),
      );
    } else {
      send(res, pendingToHttp(job.data.operation, job.data.request_id, jobId));
    }
  });
  return router;
}
