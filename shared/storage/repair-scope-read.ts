// The link repair's scope (docs/indexes.md "Scope-sized reads"), through the
// store port: the driver's read is shared/storage/repair-scope-driver.ts, the
// one in SQL on FerretDB 1.x shared/storage/ferretdb/repair-scope.ts.
import type { Db } from 'mongodb';
import type { RepairScope } from './port.js';
import { storeAdapter } from './store-adapter.js';

export type { RepairScope } from './port.js';
export { ORG_PASS_LINKS_PER_ID, ORG_PASS_MIN_IDS } from './repair-scope-driver.js';

/**
 * What the repair rule needs to see (its LinkRepairInput): every transaction
 * of the account with the counterparty (any date: the date decides the
 * scope), every entry of the counterparty, the links of those transactions and
 * the links to those entries (from any transaction), and every other entry
 * such a link points to.
 */
export async function loadRepairScope(
  db: Db,
  orgId: string,
  accountId: string,
  counterpartyId: string,
): Promise<RepairScope> {
  return (await storeAdapter(db)).repairScope(orgId, accountId, counterpartyId);
}
