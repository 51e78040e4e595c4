// Indexes for the reads each job makes. Every one starts with org_id: no
// query ever leaves its organisation, and FerretDB (no partial or TTL
// indexes, slow scans) needs a selective index for every hot read.
import type { Db } from 'mongodb';
import { collections } from './collections.js';

export async function ensureIndexes(db: Db): Promise<void> {
  const c = collections(db);
  await Promise.all([
    c.ledgerEntries.createIndex({ org_id: 1, counterparty_id: 1, entry_date: 1 }),
    c.bankTransactions.createIndex({ org_id: 1, bank_account_id: 1, counterparty_id: 1, booking_date: 1 }),
    c.bankTransactions.createIndex({ org_id: 1, bank_account_id: 1, status: 1, booking_date: 1 }),
    c.bankLinks.createIndex({ org_id: 1, bank_transaction_id: 1 }),
    c.bankLinks.createIndex({ org_id: 1, ledger_entry_id: 1 }),
    c.inboxDocuments.createIndex({ org_id: 1, status: 1 }),
    c.stagedOperations.createIndex({ org_id: 1, created_at: -1 }),
    c.scopeLocks.createIndex({ org_id: 1, staged_operation_id: 1 }),
    c.auditEvents.createIndex({ org_id: 1, at: -1 }),
  ]);
}
