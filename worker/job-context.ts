import type { Db } from 'mongodb';
import type { PendingHolder } from '../shared/domain/pending-gate.js';
import type { Logger } from '../shared/logger.js';
import type { StageJobData, StageOperation } from '../shared/queue/stage-jobs.js';
import type { ApprovalPolicy } from '../shared/domain/approval-policy.js';

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
   * Set by a job that stored its answer itself, in the same statement as the
   * writes it answers (a staging where the store port inserts together: commit-decision.ts);
   * the processor then does not store it again. Absent in contexts built by
   * hand, where a job stores nothing itself.
   */
  answer?: { stored: boolean };
  /**
   * A dry run only (worker/operation/commit-decision.ts): the live holders of
   * its keys met while deciding, hidden from the rule and answered as the
   * warning `pending_operation`.
   */
  seenHolders?: PendingHolder[];
  /**
   * The organisation's base currency, set by a staging or lifecycle job once
   * it read the org: the currency of an operation's amount where its kind has
   * none (docs/reference/http-api.md "Amount of each kind").
   */
  baseCurrency?: string;
  /**
   * The organisation's approval policy in force, set by a staging job beside
   * the org: what the new operation needs approved (docs/design/staged-lifecycle.md
   * "Approval policies"). Absent: version 0.
   */
  approvalPolicy?: ApprovalPolicy;
  /**
   * Called by an apply that left kept figures of the organisation stale
   * (docs/reference/book-reads.md "Kept figures"): the worker computes them
   * once the job has answered (worker/figures-refresher.ts). Absent in
   * contexts built by hand, where the first reader computes them.
   */
  figuresLeftStale?: (orgId: string) => void;
}

export interface WorkerJobSettings {
  /** config STAGED_TTL_HOURS: expires_at of a new staged operation. */
  stagedTtlMs: number;
}
