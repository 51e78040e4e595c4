// A FIFO ledger ↔ bank link repair (docs/http-api.md, link repair stage).
// Only the scope is read, each read selective: the account's transactions
// with the counterparty, the counterparty's entries, the links of both, and
// the entries those links point to elsewhere. The pure rule decides the rest.
import type { Db } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry, Org } from '../../shared/domain/books.js';
import { refused } from '../../shared/domain/decision.js';
import { decideLinkRepair, type LinkRepairInput, type LinkRepairPlan } from '../../shared/domain/link-repair-plan.js';
import { utcDate } from '../../shared/dates.js';
import { findAccount, findEntries, findEntriesByIds, findLinks, findTransactions } from '../../shared/storage/books-read.js';
import type { JobContext } from '../job-context.js';
import { stagingJob } from '../staging/staging-job.js';

type Op = 'ledger_link_repair.stage';

/** The repair's input, or null when the account is not the org's. */
type RepairBooks = { org: Org; input: LinkRepairInput } | null;

async function load(ctx: JobContext<Op>, org: Org): Promise<RepairBooks> {
  const { db, data } = ctx;
  const { input } = data;
  const account = await findAccount(db, data.org_id, input.bank_account_id);
  if (!account) return null;
  const books = await loadRepairScope(db, data.org_id, account.id, input.counterparty_id);
  ctx.log.info({ transactions: books.transactions.length, entries: books.entries.length, links: books.links.length }, 'repair scope loaded');
  return {
    org,
    input: {
      account,
      counterparty_id: input.counterparty_id,
      as_of: input.as_of ?? utcDate(data.requested_at),
      settlement_accounts: org.settlement_accounts,
      ...books,
    },
  };
}

export const stageLinkRepair = stagingJob<Op, RepairBooks, LinkRepairPlan>({
  kind: 'ledger_link_repair',
  load,
  decide: (books, { data }) => (books ? decideLinkRepair(books.input, books.org) : refused('not_found', { resource: 'Bank account', id: data.input.bank_account_id })),
  // A repair's result always names its blockers: the list, or [] when it could plan.
  resultFields: (decision) => ({ blockers: decision.outcome === 'blocked' ? decision.blockers : [] }),
});

interface RepairScope {
  transactions: BankTransaction[];
  entries: LedgerEntry[];
  links: BankLink[];
}

/**
 * What the rule needs to see (its LinkRepairInput): every transaction of
 * the account with the counterparty (any date: the date decides the scope),
 * every entry of the counterparty, the links of those transactions and the
 * links to those entries (from any transaction), and every other entry such a
 * link points to. Each read is selective (see where-in.ts for lists of ids).
 */
async function loadRepairScope(db: Db, orgId: string, accountId: string, counterpartyId: string): Promise<RepairScope> {
  const [transactions, entries] = await Promise.all([
    findTransactions(db, orgId, { bank_account_id: accountId, counterparty_id: counterpartyId }),
    findEntries(db, orgId, { counterparty_id: counterpartyId }),
  ]);
  const [linksOfTransactions, linksToEntries] = await Promise.all([
    findLinks(db, orgId, 'bank_transaction_id', transactions.map((t) => t.id)),
    findLinks(db, orgId, 'ledger_entry_id', entries.map((e) => e.id)),
  ]);
  const links = new Map<string, BankLink>();
  for (const link of linksOfTransactions) links.set(link.id, link);
  for (const link of linksToEntries) links.set(link.id, link);

  // Links of these transactions to entries of other counterparties: the plan
  // must see those entries to release the links.
  const loaded = new Set(entries.map((e) => e.id));
  const missing = [...new Set(linksOfTransactions.map((l) => l.ledger_entry_id).filter((id) => !loaded.has(id)))];
  const others = await findEntriesByIds(db, orgId, missing);
  return { transactions, entries: [...entries, ...others], links: [...links.values()] };
}
