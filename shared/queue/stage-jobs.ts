// The contract between API and worker for staging calls (docs/design/architecture.md):
// one map from each operation name to the input its job carries, like BullMQ's
// typed Queue<Data, Result, Name>. The API enqueues with it, the worker
// dispatches on it; the API never computes a plan, the worker never builds an
// HTTP answer.
import type { StageAnswer } from '../contract/staging-answer.js';
import type { StageOperationOf } from '../kinds/kind-module.js';
import type { KindInputs, StagedKind } from '../kinds/registry.js';

export type { StageAnswer };

export const STAGE_QUEUE = 'stage';

/**
 * Operation name → the validated input its job carries: each kind's staging call
 * with its kind's input (shared/kinds/registry.ts), then the review and apply of
 * a staged operation (docs/design/staged-lifecycle.md): same queue, same answer path.
 */
export type StageJobInputs = { [K in StagedKind as StageOperationOf<K>]: KindInputs[K] } & {
  'staged_operations.approve': LifecycleJobInput;
  'staged_operations.reject': LifecycleJobInput;
  'staged_operations.apply': LifecycleJobInput;
};

/** A review or apply job's input: the operation, an optional note, and whether the caller may see every operation. */
export interface LifecycleJobInput {
  staged_operation_id: string;
  note?: string;
  /** The caller's token holds staged:approve (sees every operation of the org). */
  can_approve: boolean;
  /** The caller's token was created as an agent's (`admin tokens create --agent`); absent: not. */
  agent?: boolean;
}

export type StageOperation = keyof StageJobInputs;

export interface StageJobData<Op extends StageOperation = StageOperation> {
  operation: Op;
  request_id: string;
  org_id: string;
  actor: string;
  /** When the API accepted the request; "today" defaults derive from it, so a retried job decides the same way. */
  requested_at: string;
  idempotency_key: string | null;
  /** The caller holds `staged:approve`: it may be answered with another actor's pending operation (docs/reference/http-api.md, pending conflicts). */
  may_review: boolean;
  /**
   * The token's scopes: a call whose scope depends on what it names is checked by its job (a revert needs the
   * scope that stages the reverted kind, docs/design/staged-lifecycle.md "Reverts"). Absent on jobs enqueued before it.
   */
  scopes?: readonly string[];
  input: StageJobInputs[Op];
  /**
   * A dry run (`?dry_run=true`, docs/reference/http-api.md §6.6): decide as a
   * real staging would, store nothing, take no lock. Absent on every other job.
   */
  dry_run?: boolean;
}

/** Job data narrowed by its operation: `switch (data.operation)` narrows `data.input`. */
export type AnyStageJobData = { [Op in StageOperation]: StageJobData<Op> }[StageOperation];

/**
 * What BullMQ keeps as a job's return value: a pointer to the stored answer
 * (job_results), and the answer itself only when it is small. A big plan is
 * stored once, in the staged operation; the job hash and the event stream
 * stay small whatever its size.
 */
export interface StageJobReturn {
  job_result_id: string;
  outcome: StageAnswer['outcome'];
  /** The staged operation a staged answer names, or a review or apply step answers: the API reads it beside the stored answer, not after it. */
  staged_operation_id?: string;
  /**
   * A dry run's answer itself when its JSON is at most CARRIED_ANSWER_MAX_CHARS:
   * a dry run stores nothing, so its small answer rides here; a bigger one is
   * stored in job_results for an hour and only this pointer is kept in Redis
   * (docs/operating/reliability.md "What Redis holds"). Any other job's: the stored answer, plan
   * included, when its JSON is at most CARRIED_ANSWER_MAX_CHARS and it is the
   * one stored (this attempt's write was the first, or it was read back): the
   * waiting request answers it without reading the store
   * (docs/design/performance.md "Round trip").
   */
  answer?: StageAnswer;
}

/** The longest answer (JSON characters) a job's return value carries. */
export const CARRIED_ANSWER_MAX_CHARS = 8192;

/**
 * Retries for unexpected failures (a lost database connection); domain
 * refusals are answers, not failures. By default six attempts with exponential
 * backoff from 1 s wait 1+2+4+8+16 = 31 s in all: a dependency outage of 30 s is
 * ridden out. A failed job is kept only a day: its key moves to a new job on
 * retry (shared/storage/idempotency-keys.ts), so nothing reads it later.
 * At most 10,000 of each are kept, whatever the rate: every answer is in
 * job_results, so a job gone from Redis loses nothing
 * (docs/operating/reliability.md "What Redis holds").
 */
export function stageJobOptions(config: { stageJobAttempts: number; stageJobBackoffMs: number }) {
  return {
    attempts: config.stageJobAttempts,
    backoff: { type: 'exponential', delay: config.stageJobBackoffMs },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 24 * 3600, count: 10_000 },
  } as const;
}

/**
 * A dry run's job: one attempt's answer is all it is for, and nothing reads
 * it once its caller (or a poll of its job id) has had it: kept an hour.
 */
export function dryRunJobOptions(options: ReturnType<typeof stageJobOptions>) {
  return {
    ...options,
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 3600, count: 10_000 },
  } as const;
}

/**
 * Worker settings, stated rather than left to BullMQ's defaults:
 * - lockDuration (default 30 s): a job's lock is renewed every 15 s while it runs, so
 *   only a dead worker loses it; the longest repair at 100k rows takes seconds.
 * - stalledInterval (default 15 s): how often a live worker looks for jobs whose lock
 *   lapsed (a worker killed mid-job) and hands them to another worker.
 * - maxStalledCount 2: a job that stalls twice (it kills its worker, e.g. out
 *   of memory) fails for good instead of taking down every replica in turn.
 */
export function stageWorkerOptions(config: { workerLockDurationMs: number; workerStalledIntervalMs: number }) {
  return {
    lockDuration: config.workerLockDurationMs,
    stalledInterval: config.workerStalledIntervalMs,
    maxStalledCount: 2,
  } as const;
}
