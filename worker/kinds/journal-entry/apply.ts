// A journal entry's own check at apply (shared/kinds/journal-entry/apply-check.ts): the chart is read only when a
// line's account is not already a precondition of the plan (it was staged without a chart).
import type { ChangedPrecondition } from '../../../shared/domain/preconditions.js';
import { chartClashes, unheldCodes } from '../../../shared/kinds/journal-entry/apply-check.js';
import type { JournalEntryPlan } from '../../../shared/kinds/journal-entry/plan.js';
import type { StagedOperationDoc } from '../../../shared/storage/collections.js';
import { ledgerAccountId, readVersionedChart } from '../../../shared/storage/ledger-accounts.js';
import type { JobContext } from '../../job-context.js';

export async function journalEntryClashes(ctx: JobContext, op: StagedOperationDoc): Promise<ChangedPrecondition[]> {
  const orgId = ctx.data.org_id;
  const accountId = (code: string): string => ledgerAccountId(orgId, code);
  const codes = unheldCodes(op.plan as JournalEntryPlan, op.preconditions, accountId);
  if (codes.length === 0) return [];
  return chartClashes(codes, await readVersionedChart(ctx.db, orgId), accountId);
}
