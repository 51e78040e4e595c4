import type { Collection, Db, Document } from 'mongodb';
import type { BankAccount, BankLink, BankTransaction, InboxDocument, LedgerEntry, Org } from '../domain/books.js';
import type { Stored } from './documents.js';
import type { ApiTokenDoc } from './api-tokens.js';
import type { AuditEventDoc } from './audit-events.js';
import type { ScopeLockDoc } from './scope-locks.js';
import type { StagedOperationDoc } from './staged-operations.js';

export type OrgDoc = Omit<Org, 'id'> & { _id: string };

/** Typed handles on every collection; one place names them. */
export function collections(db: Db) {
  const c = <T extends Document>(name: string): Collection<T> => db.collection<T>(name);
  return {
    orgs: c<OrgDoc>('orgs'),
    ledgerEntries: c<Stored<LedgerEntry>>('ledger_entries'),
    bankAccounts: c<Stored<BankAccount>>('bank_accounts'),
    bankTransactions: c<Stored<BankTransaction>>('bank_transactions'),
    bankLinks: c<Stored<BankLink>>('bank_links'),
    inboxDocuments: c<Stored<InboxDocument>>('inbox_documents'),
    stagedOperations: c<StagedOperationDoc>('staged_operations'),
    scopeLocks: c<ScopeLockDoc>('scope_locks'),
    apiTokens: c<ApiTokenDoc>('api_tokens'),
    auditEvents: c<AuditEventDoc>('audit_events'),
  };
}

export type Collections = ReturnType<typeof collections>;
