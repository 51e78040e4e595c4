// Expiry by the repeatable maintenance job (docs/design/staged-lifecycle.md
// "Expiry"; FerretDB has no TTL indexes): every staged or approved operation
// past its expires_at becomes `expired`, as a compare-and-set like any other
// transition, and its locks go with it. An apply under way never expires.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { decideTransition, type StagedStatus } from '../../shared/domain/staged-transitions.js';
import { collections } from '../../shared/storage/collections.js';
import { decodeStoredOperations } from '../../shared/storage/staged-operations.js';
import { expireOperation } from './claims.js';

export async function expireDueOperations(db: Db, now: Date): Promise<number> {
  const ops = collections(db).stagedOperations;
  let expired = 0;
  for (const status of ['staged', 'approved'] as StagedStatus[]) {
    // Equality on status is the filter FerretDB pushes down; the date is compared here.
    const due = await decodeStoredOperations(
      db,
      await ops.find({ status, expires_at: { $lte: now.toISOString() } }).toArray(),
    );
    for (const op of due) {
      const decision = decideTransition(
        { ...op, staged_operation_id: op._id },
        { action: 'expire', actor: 'system', require_distinct_approver: true, now: now.toISOString() },
      );
      if (decision.outcome !== 'transition') continue;
      const after = await expireOperation(db, op, decision.from, now, {
        request_id: `sweep:${now.toISOString()}`,
        claim_id: `sweep_${randomUUID()}`,
      });
      if (after.status === 'expired') expired += 1;
    }
  }
  return expired;
}
