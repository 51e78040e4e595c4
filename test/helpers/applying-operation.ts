// An operation in `applying` with an empty journal whose lease `owner` holds
// until `leaseUntil`: the fixture of the lease tests (store level, no plan run).
import type { StagedOperationDoc } from '../../shared/storage/collections.js';

export function applyingOperation(id: string, orgId: string, owner: string, leaseUntil: string): StagedOperationDoc {
  return {
    _id: id,
    org_id: orgId,
    kind: 'ledger_reversal',
    status: 'applying',
    created_by: 'alice',
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    request_id: 'req',
    idempotency_key: null,
    scope_key: `reverse:${id}`,
    input: {},
    plan: { ledger_entry_id: `le_${id}`, actions: [] },
    plan_hash: 'hash',
    preconditions: [],
    warnings: [],
    history: [],
    apply: {
      writes: [],
      done: 0,
      phase: 'forward',
      undone: 0,
      conflict: null,
      owner,
      lease_until: leaseUntil,
      started_at: '',
      started_by: 'bob',
      request_id: 'req',
    },
  };
}
