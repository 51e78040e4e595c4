// Staging a journal entry (docs/reference/http-api.md "Journal entry stage"): load the chart, the bank
// accounts, the transaction it books with its links, the document it attaches, whether its derived id is
// in the books and the posted entries of its counterparty with its reference; decide by the pure rule
// (shared/kinds/journal-entry/plan.ts). Whoever holds the entry, the transaction or the document is read
// only when it can change the answer (the pending gate, worker/operation/staging-job.ts).
import {
  accountContext,
  documentContext,
  entryContext,
  transactionContext,
} from '../../../shared/domain/plan-context.js';
import type { PlanContext } from '../../../shared/domain/plan-context.js';
import {
  decideJournalEntry,
  journalEntryLocks,
  journalEntryId,
  type JournalEntryBooks,
  type JournalEntryPlan,
} from '../../../shared/kinds/journal-entry/plan.js';
import { listAccounts } from '../../../shared/storage/books-pages.js';
import {
  findEntry,
  findLinks,
  findPostedEntriesWithReference,
  findTransactionsByIds,
} from '../../../shared/storage/books-read.js';
import { findInboxDocumentsByIds } from '../../../shared/storage/inbox-read.js';
import { readVersionedChart } from '../../../shared/storage/ledger-accounts.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'journal_entry.stage';
type Books = Omit<JournalEntryBooks, 'org'>;

const entryIdOf = (ctx: JobContext<Op>): string => journalEntryId(ctx.data.org_id, ctx.data.input);

async function load(ctx: JobContext<Op>): Promise<Books> {
  const { db, data } = ctx;
  const orgId = data.org_id;
  const input = data.input;
  const txnId = input.bank_transaction_id;
  const docId = input.document_id;
  const [chart, bankAccounts, transactions, links, documents, existing, sameReference] = await Promise.all([
    readVersionedChart(db, orgId),
    listAccounts(db, orgId),
    txnId === undefined ? [] : findTransactionsByIds(db, orgId, [txnId]),
    txnId === undefined ? [] : findLinks(db, orgId, 'bank_transaction_id', [txnId]),
    docId === undefined ? [] : findInboxDocumentsByIds(db, orgId, [docId]),
    findEntry(db, orgId, entryIdOf(ctx)),
    findPostedEntriesWithReference(db, orgId, input.counterparty_id, input.reference),
  ]);
  return {
    chart,
    bank_accounts: bankAccounts,
    transaction: transactions.find((t) => t.id === txnId) ?? null,
    transaction_links: links,
    document: documents.find((d) => d.id === docId) ?? null,
    entry_exists: existing !== null,
    same_reference: sameReference,
    pending: [],
  };
}

/** The transaction it books (with its account), the document it attaches, and the possible duplicates. */
function context(books: Books, plan: JournalEntryPlan, settlementAccounts: readonly string[]): PlanContext {
  const out: PlanContext = {};
  const txn = plan.bank_link ? books.transaction : null;
  if (txn) {
    const account = books.bank_accounts.find((a) => a.id === txn.bank_account_id);
    if (account) out.bank_account = accountContext(account);
    out.bank_transactions = [transactionContext(txn)];
  }
  if (plan.document_id !== null && books.document) out.inbox_documents = [documentContext(books.document)];
  const duplicates = books.same_reference.filter((e) => e.id !== plan.ledger_entry_id);
  if (duplicates.length > 0)
    out.ledger_entries = [...duplicates]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((e) => entryContext(e, settlementAccounts));
  return out;
}

export const stageJournalEntry = stagingJob<Op, Books, JournalEntryPlan>({
  kind: 'journal_entry',
  load,
  decide: (books, org, ctx) => decideJournalEntry({ ...books, org }, ctx.data.input, entryIdOf(ctx)),
  context: (books, plan, org) => context(books, plan, org.settlement_accounts),
  // The keys a staged journal entry locks (journalEntryLocks): its subject key, the entry id, the transaction, the document.
  pendingGate: {
    keys: (_books, ctx) => lockKeys(ctx.data.org_id, journalEntryLocks(entryIdOf(ctx), ctx.data.input)),
    withHolders: (books, holders) => ({ ...books, pending: holders }),
  },
});
