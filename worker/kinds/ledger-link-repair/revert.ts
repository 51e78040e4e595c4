// Reverting a link repair (docs/design/staged-lifecycle.md "Reverts"): the
// worker reads the versions now of the transactions and entries of the links
// the repair wrote.
import {
  repairRevertReads,
  repairRevertRules,
  type RepairRevertExtra,
} from '../../../shared/kinds/ledger-link-repair/revert.js';
import { currentRecords } from '../../../shared/storage/reverts.js';
import { revertHook } from '../revert/hook.js';

export const repairRevert = revertHook<RepairRevertExtra>({
  rules: repairRevertRules,
  load: async (ctx, subject, records) => {
    const reads = repairRevertReads(subject, records);
    const refs = [
      ...reads.transaction_ids.map((id) => ({ collection: 'bank_transactions', id })),
      ...reads.entry_ids.map((id) => ({ collection: 'ledger_entries', id })),
    ];
    const now = await currentRecords(ctx.db, ctx.data.org_id, refs);
    return { versions: Object.fromEntries([...now].map(([key, record]) => [key, record?.version ?? null])) };
  },
});
