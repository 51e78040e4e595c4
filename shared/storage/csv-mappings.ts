// The CSV column mapping saved on a bank account (docs/guide/statement-import.md
// "Saved CSV mapping"): one document per account in `bank_csv_mappings`, `_id`
// = the bank account's id (unique like the account's own `_id`), read and
// written by `_id` alone. A save reads the document, then writes it by `_id`
// and the version it read (FerretDB's filtered updates are not atomic, so the
// version check is what settles two saves at once: the loser reads again);
// the first save is an insert a unique `_id` settles.
import type { Db } from 'mongodb';
import type { CsvMapping } from '../kinds/statement-import/csv.js';
import { collections } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { findOwnedById } from './where-in.js';

export interface SavedCsvMapping {
  csv_mapping: CsvMapping;
  updated_at: string;
  updated_by: string;
}

export async function findCsvMapping(db: Db, orgId: string, bankAccountId: string): Promise<SavedCsvMapping | null> {
  const doc = await findOwnedById(db, collections(db).bankCsvMappings, orgId, bankAccountId);
  return doc ? { csv_mapping: doc.csv_mapping, updated_at: doc.updated_at, updated_by: doc.updated_by } : null;
}

/** Save (replace) the account's mapping; the last save wins. The caller has checked that the account is the org's. */
export async function saveCsvMapping(
  db: Db,
  orgId: string,
  bankAccountId: string,
  mapping: CsvMapping,
  actor: string,
  now: string,
): Promise<SavedCsvMapping> {
  const c = collections(db).bankCsvMappings;
  const saved: SavedCsvMapping = { csv_mapping: mapping, updated_at: now, updated_by: actor };
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const current = await findOwnedById(db, c, orgId, bankAccountId);
    if (current === null) {
      try {
        await c.insertOne({ _id: bankAccountId, org_id: orgId, ...saved, version: 1 });
        return saved;
      } catch (err) {
        if (isUniqueViolation(err)) continue;
        throw err;
      }
    }
    const res = await c.updateOne(
      { _id: bankAccountId, version: current.version },
      { $set: { ...saved, version: current.version + 1 } },
    );
    if (res.matchedCount === 1) return saved;
  }
  throw new Error(`the CSV mapping of ${bankAccountId} kept changing under 20 saves in a row`);
}
