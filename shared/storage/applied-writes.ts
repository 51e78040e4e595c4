// Which applied operation wrote which book record (docs/guide/ledger-exchange.md
// "What the export holds"): records carry no operation id of their own, so the
// export reads it from the applied operations' journals, with who approved
// each. A record written by several is the last one's.
import type { Db } from 'mongodb';
import { collections, type StoredStagedOperation } from './collections.js';
import { journalWrites } from './staged-operation-status.js';
import { decodeStoredOperations } from './staged-operations.js';

export interface AppliedOperationWrites {
  id: string;
  applied_at: string;
  /** The actors who approved it, in the order they did, each once. */
  approvers: string[];
  /** The records its journal inserted or updated (a deleted record is not exported). */
  records: Array<{ collection: string; id: string }>;
}

/** Every applied operation of the organisation, in the order applied (then by id). */
export async function readAppliedWrites(db: Db, orgId: string): Promise<AppliedOperationWrites[]> {
  const stored = (await collections(db)
    .stagedOperations.find({ org_id: orgId, status: 'applied' })
    .toArray()) as unknown as StoredStagedOperation[];
  const ops = await decodeStoredOperations(db, stored);
  const applied = await Promise.all(
    ops.map(async (op) => ({ op, writes: op.apply ? await journalWrites(db, op, op.apply) : [] })),
  );
  return applied
    .map(({ op, writes }) => {
      return {
        id: op._id,
        applied_at: op.history.find((h) => h.to === 'applied')?.at ?? '',
        approvers: [...new Set(op.history.filter((h) => h.to === 'approved').map((h) => h.actor))],
        records: writes.filter((w) => w.action !== 'delete').map((w) => ({ collection: w.collection, id: w.id })),
      };
    })
    .sort((a, b) => (a.applied_at < b.applied_at ? -1 : a.applied_at > b.applied_at ? 1 : a.id < b.id ? -1 : 1));
}
