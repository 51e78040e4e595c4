// Dispatch a read job (shared/queue/read-jobs.ts) to its handler. A read has
// no side effects, so a failure is simply retried once; the API answers 500
// if it still fails. A job whose requester has stopped waiting is dropped.
import { UnrecoverableError, type Job } from 'bullmq';
import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import type { FiguresRefresher } from './figures-refresher.js';
import type { ReadJobData, ReadJobResult, ReadOperation } from '../shared/queue/read-jobs.js';
import { listCounterparties } from './jobs/counterparties-list.js';
import { listInboxDuplicates } from './jobs/inbox-duplicates-list.js';
import { readTrialBalance } from './jobs/trial-balance.js';
import { exportBooks } from './jobs/books-export.js';
import { showPeriod } from './jobs/periods-show.js';
import { listMatchSuggestions } from './jobs/match-suggestions-list.js';

type ReadHandler = (db: Db, data: ReadJobData) => Promise<ReadJobResult>;

const HANDLERS: Record<ReadOperation, ReadHandler> = {
  // The deadline bounds only the wait for another reader's computation: a reader that computes finishes, so the next one finds it stored.
  'inbox_duplicates.list': (db, data) =>
    listInboxDuplicates(
      db,
      data.org_id,
      data.input as ReadJobData<'inbox_duplicates.list'>['input'],
      new Date(data.deadline_at),
    ),
  'counterparties.list': (db, data) =>
    listCounterparties(db, data.org_id, data.input as ReadJobData<'counterparties.list'>['input']),
  'ledger.trial_balance': (db, data) =>
    readTrialBalance(db, data.org_id, data.input as ReadJobData<'ledger.trial_balance'>['input']),
  'books.export': (db, data) => exportBooks(db, data.org_id, data.input as ReadJobData<'books.export'>['input']),
  'periods.show': (db, data) => showPeriod(db, data.org_id, data.input as ReadJobData<'periods.show'>['input']),
  'match_suggestions.list': (db, data) =>
    listMatchSuggestions(db, data.org_id, data.input as ReadJobData<'match_suggestions.list'>['input']),
};

/** The reads of kept figures (docs/reference/book-reads.md "Kept figures"): they wait for this process's refresh under way. */
const FIGURE_READS: ReadonlySet<ReadOperation> = new Set(['counterparties.list', 'ledger.trial_balance']);

/** `figures`: the worker's background refresh of kept figures, whose round under way a figure read waits for. */
export function createReadProcessor(db: Db, logger: Logger, figures?: Pick<FiguresRefresher, 'settled'>) {
  return async (job: Job<ReadJobData, ReadJobResult>): Promise<ReadJobResult> => {
    const data = job.data;
    const log = logger.child({
      request_id: data.request_id,
      job_id: job.id,
      operation: data.operation,
      attempt: job.attemptsMade + 1,
    });
    const handler = HANDLERS[data.operation];
    if (!handler) throw new UnrecoverableError(`no handler for read operation ${String(data.operation)}`);
    if (Date.now() > Date.parse(data.deadline_at)) {
      log.warn({ deadline_at: data.deadline_at }, 'read job dropped: the request stopped waiting');
      throw new UnrecoverableError('deadline passed before the job started');
    }
    const started = Date.now();
    try {
      if (figures && FIGURE_READS.has(data.operation)) await figures.settled(data.org_id);
      const result = await handler(db, data);
      log.info({ ms: Date.now() - started }, 'read job finished');
      return result;
    } catch (err) {
      log.error({ err, ms: Date.now() - started }, 'read job failed');
      throw err;
    }
  };
}
