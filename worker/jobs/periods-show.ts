// One closed period, checked (docs/design/staged-lifecycle.md "Closed periods"):
// its stored hash beside the hash of its records as they are now. Reading the
// whole period is a whole-organisation read, so it runs here rather than in the
// API; the hash is the domain's (shared/domain/period-hash.ts).
import type { Db } from 'mongodb';
import { periodHash } from '../../shared/domain/period-hash.js';
import type { PeriodCheck } from '../../shared/schemas/periods.js';
import { findClosedPeriod } from '../../shared/storage/closed-periods.js';
import { readPeriodRecords } from '../../shared/storage/period-records.js';

export async function showPeriod(db: Db, orgId: string, input: { through: string }): Promise<PeriodCheck | null> {
  const [period, records] = await Promise.all([
    findClosedPeriod(db, orgId, input.through),
    readPeriodRecords(db, orgId),
  ]);
  if (!period) return null;
  const current = periodHash(period.through, records.entries, records.transactions);
  return {
    through: period.through,
    closed_at: period.closed_at,
    approved_by: period.approved_by,
    stored_hash: period.hash,
    current_hash: current,
    intact: current === period.hash,
  };
}
