// The organisation's operations still to be applied or being applied (staged,
// approved, applying) of some kinds, with their plans: what a period close
// judges against its new lock date (docs/design/staged-lifecycle.md "Closed
// periods"). An equality read on org_id and status (indexed), then the plans
// of the kinds asked for, decoded with their bodies.
import type { Db } from 'mongodb';
import type { StagedKind } from '../domain/staged-kind.js';
import { collections, type StagedOperationDoc, type StoredStagedOperation } from './collections.js';
import { decodeStoredOperations } from './staged-operations.js';
import { storeAdapter } from './store-adapter.js';

const NOT_YET_ENDED = ['staged', 'approved', 'applying'] as const;

export async function pendingOperationsOfKinds(
  db: Db,
  orgId: string,
  kinds: readonly StagedKind[],
): Promise<StagedOperationDoc[]> {
  if (kinds.length === 0) return [];
  const docs = (await (
    await storeAdapter(db)
  ).where({
    collection: collections(db).stagedOperations.collectionName,
    equalities: { org_id: orgId },
    any: { field: 'status', values: NOT_YET_ENDED },
  })) as StoredStagedOperation[];
  const wanted = new Set<string>(kinds);
  return decodeStoredOperations(
    db,
    docs.filter((d) => wanted.has(d.kind)),
  );
}
