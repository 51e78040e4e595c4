import type { Db } from 'mongodb';
import type { PendingHolder } from '../shared/domain/scope.js';
import type { Logger } from '../shared/logger.js';
import type { PostgresPages } from '../shared/storage/postgres-pages.js';
import type { StageJobData, StageOperation } from '../shared/queue/stage-jobs.js';

/** What a job processor gets: the books, a logger bound to the request id, the job. */
export interface JobContext<Op extends StageOperation = StageOperation> {
  db: Db;
  log: Logger;
  jobId: string;
  data: StageJobData<Op>;
  /** The instant this attempt started (expiry and lock ages), distinct from data.requested_at. */
  now: Date;
  /** This job ran before (a failed attempt, or a worker that died): only then can its own writes be there already. */
  rerun: boolean;
  /** Settings from the worker's config. */
  settings: WorkerJobSettings;
  /**
   * Writes that go out together with the stored answer rather than before it
   * (the staged transition's audit event): the processor awaits them beside
   * saveJobResult, and a rerun of a job answered `staged` records them again.
   */
  writes: Promise<void>[];
  /**
   * A dry run only (worker/operation/commit-decision.ts): the live holders of
   * its scope met while deciding, hidden from the rule and answered as the
   * warning `pending_operation`.
   */
  seenHolders?: PendingHolder[];
  /**
   * The PostgreSQL database behind FerretDB (FERRETDB_POSTGRES_URL), for the
   * reads FerretDB 1.24 cannot make by index (a statement import's apply);
   * absent on MongoDB and without the URL, where those reads go through the driver.
   */
  postgres?: PostgresPages | null;
}

export interface WorkerJobSettings {
  /** config STAGED_TTL_HOURS: expires_at of a new staged operation. */
  stagedTtlMs: number;
}
