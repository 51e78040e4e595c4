import type { Db } from 'mongodb';
import type { Logger } from '../shared/logger.js';
import type { JobOutcome, StageJobData } from '../shared/queue/stage-jobs.js';

/** What a job processor gets: the books, a logger bound to the request id, the job. */
export interface JobContext {
  db: Db;
  log: Logger;
  jobId: string;
  data: StageJobData;
  /** The instant this attempt started (expiry and lock ages), distinct from data.requested_at. */
  now: Date;
}

export type StageHandler = (ctx: JobContext) => Promise<JobOutcome>;
