import type { Db } from 'mongodb';
import type { TestFault } from '../shared/config.js';
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
  /** Settings from the worker's config; absent in jobs built without one (defaults apply). */
  settings?: WorkerJobSettings;
}

export interface WorkerJobSettings {
  /** config STAGED_TTL_HOURS: expires_at of a new staged operation. */
  stagedTtlMs: number;
  /** config BOOKSTAGE_TEST_FAULT (tests only). */
  testFault: TestFault | null;
}

export type StageHandler = (ctx: JobContext) => Promise<JobOutcome>;
