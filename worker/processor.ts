// Dispatch a staging job to its kind by the typed job map
// (shared/queue/stage-jobs.ts). Domain refusals are answers; anything else is
// a failure BullMQ retries, and after the last attempt the stored answer is
// `internal`, so a poll or replay ends instead of waiting forever.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import type { AnyStageJobData, StageAnswer } from '../shared/queue/stage-jobs.js';
import { saveJobResult } from '../shared/storage/job-results.js';
import { stageLedgerReversal } from './jobs/ledger-reversal-stage.js';
import { stageLinkRepair } from './jobs/link-repair-stage.js';
import { stageReconciliation } from './jobs/reconcile-stage.js';

/** One kind per operation; `data.operation` narrows the input each kind gets. */
function dispatch(db: Db, log: Logger, jobId: string, data: AnyStageJobData): Promise<StageAnswer> {
  const base = { db, log, jobId, now: new Date() };
  switch (data.operation) {
    case 'ledger_reversal.stage':
      return stageLedgerReversal({ ...base, data });
    case 'ledger_link_repair.stage':
      return stageLinkRepair({ ...base, data });
    case 'bank_reconcile.stage':
      return stageReconciliation({ ...base, data });
    default:
      return unknownOperation(data);
  }
}

function unknownOperation(data: never): never {
  throw new UnrecoverableError(`no handler for operation ${String((data as { operation?: unknown }).operation)}`);
}

export function createStageProcessor(db: Db, logger: Logger) {
  return async (job: Job<AnyStageJobData, StageAnswer>): Promise<StageAnswer> => {
    const data = job.data;
    const jobId = job.id ?? '';
    const log = logger.child({ request_id: data.request_id, job_id: jobId, operation: data.operation, attempt: job.attemptsMade + 1 });
    const finish = async (answer: StageAnswer): Promise<StageAnswer> => {
      // Stored before BullMQ marks the job complete, so a poll never finds it done without an answer.
      await saveJobResult(db, { _id: jobId, org_id: data.org_id, actor: data.actor, request_id: data.request_id, answer, finished_at: new Date().toISOString() });
      return answer;
    };
    const started = Date.now();
    log.info('job started');
    try {
      const answer = await dispatch(db, log, jobId, data);
      log.info({ outcome: answer.outcome, ms: Date.now() - started }, 'job finished');
      return await finish(answer);
    } catch (err) {
      const lastAttempt = err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.error({ err, ms: Date.now() - started, last_attempt: lastAttempt }, 'job failed');
      if (lastAttempt) {
        await finish({ operation: data.operation, outcome: 'refused', code: 'internal', details: { job_id: jobId } }).catch(() => undefined);
      }
      throw err;
    }
  };
}
