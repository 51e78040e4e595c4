// Staging bank matches (docs/reference/http-api.md "Bank matches"): read the
// account, the transactions and entries the pairs name and every link of
// them, by id and by indexed equality whatever the organisation's size; decide
// by the pure rule (shared/kinds/bank-match/plan.ts). Whoever holds a
// transaction or an entry is read only when it can change the answer (the
// pending gate, worker/operation/staging-job.ts).
import { accountContext, entryContext, transactionContext } from '../../../shared/domain/plan-context.js';
import {
  bankMatchLockIds,
  bankMatchSubjectKey,
  decideBankMatch,
  type BankMatchBooks,
  type BankMatchPlan,
} from '../../../shared/kinds/bank-match/plan.js';
import { findAccount, findEntriesByIds, findLinks, findTransactionsByIds } from '../../../shared/storage/books-read.js';
import { lockKeys } from '../../../shared/storage/plan-locks.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'bank_match.stage';
type Books = Omit<BankMatchBooks, 'org'>;

async function load(ctx: JobContext<Op>): Promise<Books> {
  const { db, data } = ctx;
  const orgId = data.org_id;
  const { transaction_ids: transactionIds, entry_ids: entryIds } = bankMatchLockIds(data.input.matches);
  const [account, transactions, entries, transactionLinks, entryLinks] = await Promise.all([
    findAccount(db, orgId, data.input.bank_account_id),
    findTransactionsByIds(db, orgId, transactionIds),
    findEntriesByIds(db, orgId, entryIds),
    findLinks(db, orgId, 'bank_transaction_id', transactionIds),
    findLinks(db, orgId, 'ledger_entry_id', entryIds),
  ]);
  return { account, transactions, entries, links: [...transactionLinks, ...entryLinks], pending: [] };
}

export const stageBankMatch = stagingJob<Op, Books, BankMatchPlan>({
  kind: 'bank_match',
  load,
  decide: (books, org, { data }) =>
    decideBankMatch(
      { ...books, org },
      { bank_account_id: data.input.bank_account_id, matches: data.input.matches, note: data.input.note ?? null },
    ),
  // The account, each transaction and each entry with its facts as staged; the plan says what each has open.
  context: (books, plan, org) => {
    const transactionIds = new Set(plan.transactions.map((t) => t.bank_transaction_id));
    const entryIds = new Set(plan.entries.map((e) => e.ledger_entry_id));
    return {
      ...(books.account ? { bank_account: accountContext(books.account) } : {}),
      ledger_entries: books.entries
        .filter((e) => entryIds.has(e.id))
        .map((e) => entryContext(e, org.settlement_accounts))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
      bank_transactions: books.transactions
        .filter((t) => transactionIds.has(t.id))
        .map(transactionContext)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    };
  },
  // The keys a staged match locks: its subject key, each entry and each transaction.
  pendingGate: {
    keys: (_books, { data }) =>
      lockKeys(data.org_id, {
        subject_key: bankMatchSubjectKey(data.input),
        ...bankMatchLockIds(data.input.matches),
      }),
    withHolders: (books, holders) => ({ ...books, pending: holders }),
  },
});
