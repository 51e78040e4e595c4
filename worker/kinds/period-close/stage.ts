// A period close (docs/design/staged-lifecycle.md "Closed periods"): load how
// many records the period holds and the pending operations the new lock would
// refuse; decide by the pure rule. Another close pending is read only when it
// can change the answer (the pending gate, worker/operation/staging-job.ts).
import { utcDate } from '../../../shared/domain/dates.js';
import {
  decidePeriodClose,
  PERIOD_CLOSE_SCOPE_KEY,
  type PeriodCloseBooks,
  type PeriodClosePlan,
} from '../../../shared/kinds/period-close/plan.js';
import { readBookDates } from '../../../shared/storage/period-records.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob, type StagingJobRunner } from '../../operation/staging-job.js';
import { operationsRefusedBy, type LockJudge } from './lock-judge.js';

type Op = 'period_close.stage';
type Books = Omit<PeriodCloseBooks, 'org'>;

export function stagePeriodClose(judge: LockJudge): StagingJobRunner<Op> {
  return stagingJob<Op, Books, PeriodClosePlan>({
    kind: 'period_close',
    load: async (ctx: JobContext<Op>) => {
      const [dates, refused] = await Promise.all([
        readBookDates(ctx.db, ctx.data.org_id),
        operationsRefusedBy(ctx, judge, ctx.data.input.through),
      ]);
      return { ...dates, refused_by_lock: refused, pending: [] };
    },
    decide: (books, org, { data }) =>
      decidePeriodClose(
        { ...books, org },
        { through: data.input.through, note: data.input.note ?? null, today: utcDate(data.requested_at) },
      ),
    pendingGate: {
      keys: (_books, { data }) =>
        lockKeys(data.org_id, { subject_key: PERIOD_CLOSE_SCOPE_KEY, entry_ids: [], transaction_ids: [] }),
      withHolders: (books, holders) => ({ ...books, pending: holders }),
    },
  });
}
