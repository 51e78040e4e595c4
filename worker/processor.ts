// Dispatch a staging job to its handler. Domain refusals (AppError) are
// results the API answers as they are; anything else is a failure BullMQ
// retries, and after the last attempt the API answers 500 `internal`.
import type { Job } from 'bullmq';
import type { Db } from 'mongodb';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { JobOutcome, StageJobData, StageOperation } from '../shared/queue/stage-jobs.js';
import { saveJobResult } from '../shared/storage/job-results.js';
import type { StageHandler, WorkerJobSettings } from './job-context.js';
import { stageLedgerReversal } from './jobs/ledger-reversal-stage.js';
import { stageLinkRepair } from './jobs/link-repair-stage.js';
import { stageReconciliation } from './jobs/reconcile-stage.js';
import { applyStagedOperation } from './jobs/staged-apply.js';
import { approveStagedOperation } from './jobs/staged-approve.js';
import { rejectStagedOperation } from './jobs/staged-reject.js';

const HANDLERS: Record<StageOperation, StageHandler> = {
  'ledger_reversal.stage': stageLedgerReversal,
  'ledger_link_repair.stage': stageLinkRepair,
  'bank_reconcile.stage': stageReconciliation,
  'staged_operations.approve': approveStagedOperation,
  'staged_operations.reject': rejectStagedOperation,
  'staged_operations.apply': applyStagedOperation,
};

export function createStageProcessor(db: Db, logger: Logger, settings?: WorkerJobSettings) {
  return async (job: Job<StageJobData, JobOutcome>): Promise<JobOutcome> => {
    const data = job.data;
    const log = logger.child({ request_id: data.request_id, job_id: job.id, operation: data.operation, attempt: job.attemptsMade + 1 });
    const handler = HANDLERS[data.operation];
    if (!handler) throw new Error(`no handler for operation ${String(data.operation)}`);
    const started = Date.now();
    const finish = async (outcome: JobOutcome): Promise<JobOutcome> => {
      // Stored before BullMQ marks the job complete, so a poll never finds it done without an answer.
      await saveJobResult(db, { _id: job.id!, org_id: data.org_id, actor: data.actor, request_id: data.request_id, outcome, finished_at: new Date().toISOString() });
      return outcome;
    };
    log.info('job started');
    try {
      const outcome = await handler({ db, log, jobId: job.id!, data, now: new Date(), settings });
      log.info({ http_status: outcome.http_status, ms: Date.now() - started }, 'job finished');
      return await finish(outcome);
    } catch (err) {
      if (err instanceof AppError) {
        log.info({ http_status: err.status, code: err.code, ms: Date.now() - started }, 'job refused');
        return finish({ http_status: err.status, operation: data.operation, error: err.toBody() });
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.error({ err, ms: Date.now() - started, last_attempt: lastAttempt }, 'job failed');
      if (lastAttempt) {
        await finish({ http_status: 500, operation: data.operation, error: new AppError('internal', { details: { job_id: job.id } }).toBody() }).catch(() => undefined);
      }
      throw err;
    }
  };
}
