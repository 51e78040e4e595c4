// The chart of accounts as stored (docs/guide/importing-books.md "Chart of
// accounts"): the books import writes it (shared/storage/books-write.ts,
// section `accounts`); these are its reads, each an equality on org_id
// (indexed, shared/storage/indexes.ts) sorted by code. MongoDB and FerretDB
// compare strings by their bytes, so the order is byte order (docs/indexes.md).
import type { Db } from 'mongodb';
import type { LedgerAccount, VersionedLedgerAccount } from '../domain/books.js';
import { collections, type LedgerAccountDoc } from './collections.js';

const FIELDS = { _id: 0, code: 1, name: 1, type: 1, active: 1 } as const;

/** The stored `_id` of an organisation's account: a code holds no `:`, so one id names one org and code. */
export function ledgerAccountId(orgId: string, code: string): string {
  return `${orgId}:${code}`;
}

function toAccount(doc: Pick<LedgerAccountDoc, 'code' | 'name' | 'type' | 'active'>): LedgerAccount {
  return { code: doc.code, name: doc.name, type: doc.type, active: doc.active };
}

/** Up to `limit` accounts of the organisation with a code after `afterCode` (null: from the first), by code. */
export async function ledgerAccountsPage(
  db: Db,
  orgId: string,
  afterCode: string | null,
  limit: number,
): Promise<LedgerAccount[]> {
  const docs = await collections(db)
    .ledgerAccounts.find(afterCode === null ? { org_id: orgId } : { org_id: orgId, code: { $gt: afterCode } })
    .project<Pick<LedgerAccountDoc, 'code' | 'name' | 'type' | 'active'>>(FIELDS)
    .sort({ code: 1 })
    .limit(limit)
    .toArray();
  return docs.map(toAccount);
}

/** The organisation's whole chart, by code; empty when it has none (then any code is accepted). */
export async function readChart(db: Db, orgId: string): Promise<LedgerAccount[]> {
  return (await readVersionedChart(db, orgId)).map(toAccount);
}

/** The whole chart with each account's stored id and version (a staged entry's preconditions), by code. */
export async function readVersionedChart(db: Db, orgId: string): Promise<VersionedLedgerAccount[]> {
  const docs = await collections(db)
    .ledgerAccounts.find({ org_id: orgId })
    .project<Pick<LedgerAccountDoc, '_id' | 'code' | 'name' | 'type' | 'active' | 'version'>>({
      ...FIELDS,
      _id: 1,
      version: 1,
    })
    .sort({ code: 1 })
    .toArray();
  return docs.map((d) => ({ ...toAccount(d), id: d._id, version: d.version }));
}
