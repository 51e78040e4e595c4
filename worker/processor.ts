// Dispatch a staging job to its handler. Domain refusals (AppError) are
// results the API answers as they are; anything else is a failure BullMQ
// retries, and after the last attempt the API answers 500 `internal`.
import type { Job } from 'bullmq';
import type { Db } from 'mongodb';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { JobOutcome, StageJobData, StageOperation } from '../shared/queue/stage-jobs.js';
import type { StageHandler } from './job-context.js';
import { stageLedgerReversal } from './jobs/ledger-reversal-stage.js';

const HANDLERS: Record<StageOperation, StageHandler> = {
  'ledger_reversal.stage': stageLedgerReversal,
};

export function createStageProcessor(db: Db, logger: Logger) {
  return async (job: Job<StageJobData, JobOutcome>): Promise<JobOutcome> => {
    const data = job.data;
    const log = logger.child({ request_id: data.request_id, job_id: job.id, operation: data.operation, attempt: job.attemptsMade + 1 });
    const handler = HANDLERS[data.operation];
    if (!handler) throw new Error(`no handler for operation ${String(data.operation)}`);
    const started = Date.now();
    log.info('job started');
    try {
      const outcome = await handler({ db, log, jobId: job.id!, data, now: new Date() });
      log.info({ http_status: outcome.http_status, ms: Date.now() - started }, 'job finished');
      return outcome;
    } catch (err) {
      if (err instanceof AppError) {
        log.info({ http_status: err.status, code: err.code, ms: Date.now() - started }, 'job refused');
        return { http_status: err.status, operation: data.operation, error: err.toBody() };
      }
      log.error({ err, ms: Date.now() - started }, 'job failed');
      throw err;
    }
  };
}
