// The link repair's records (docs/indexes.md "Reads sized by the repair"), through the
// store port: the driver's read is shared/storage/repair-records-driver.ts, the
// one in SQL on FerretDB 1.x shared/storage/ferretdb/repair-records.ts.
import type { Db } from 'mongodb';
import type { RepairRecords } from './port.js';
import { storeAdapter } from './store-adapter.js';

export type { RepairRecords } from './port.js';
export { ORG_PASS_LINKS_PER_ID, ORG_PASS_MIN_IDS } from './repair-records-driver.js';

/**
 * What the repair rule needs to see (its LinkRepairInput): every transaction
 * of the account with the counterparty (any date: the date decides the
 * record set), every entry of the counterparty, the links of those transactions and
 * the links to those entries (from any transaction), and every other entry
 * such a link points to.
 */
export async function loadRepairRecords(
  db: Db,
  orgId: string,
  accountId: string,
  counterpartyId: string,
): Promise<RepairRecords> {
  return (await storeAdapter(db)).repairRecords(orgId, accountId, counterpartyId);
}
