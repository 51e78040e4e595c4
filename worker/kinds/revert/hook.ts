// The hook by which a staged kind can be reverted (docs/design/staged-lifecycle.md
// "Reverts"): its pure rules (shared/kinds/<kind>/revert.ts) and what the
// worker reads for them beyond the records its apply journal wrote. A kind
// whose worker module (worker/kinds.ts) has no `revert` answers not_revertible.
import type { KindRevertRules, RevertBooks, RevertSubject } from '../../../shared/kinds/revert/plan.js';
import type { JobContext } from '../../job-context.js';

export interface WorkerRevert<Extra = unknown> {
  rules: KindRevertRules<Extra>;
  /** The reads the rules need beyond the journal's records (`books.extra`). */
  load?(ctx: JobContext, subject: RevertSubject, records: RevertBooks['records']): Promise<Extra>;
}

/** A kind's hook as the registry holds it, whatever its reads. */
export const revertHook = <Extra>(hook: WorkerRevert<Extra>): WorkerRevert => hook;
