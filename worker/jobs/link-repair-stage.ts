// Load → plan → write for a FIFO ledger ↔ bank link repair (DESIGN §5.2).
// Only the scope is read, each read selective: the account's transactions
// with the counterparty, the counterparty's entries, the links of both, and
// the entries those links point to elsewhere. planLinkRepair decides the rest.
import type { Db } from 'mongodb';
import type { BankLink, BankTransaction, LedgerEntry } from '../../shared/domain/books.js';
import { planLinkRepair } from '../../shared/domain/link-repair-plan.js';
import { utcDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import type { JobOutcome } from '../../shared/queue/stage-jobs.js';
import { findAccount, findEntries, findOrg, findTransactions } from '../../shared/storage/books-read.js';
import { findEntriesByIds, findLinksWhereIn } from '../../shared/storage/where-in.js';
import type { JobContext } from '../job-context.js';
import { answerDecision } from '../staging/commit-staged.js';

interface LinkRepairInput { bank_account_id: string; counterparty_id: string; as_of?: string; note?: string }

export async function stageLinkRepair(ctx: JobContext): Promise<JobOutcome> {
  const { db, data } = ctx;
  const input = data.input as unknown as LinkRepairInput;
  const orgId = data.org_id;
  const org = await findOrg(db, orgId);
  if (!org) throw new AppError('not_found', { details: { resource: 'Organisation', id: orgId } });
  const account = await findAccount(db, orgId, input.bank_account_id);
  if (!account) throw new AppError('not_found', { details: { resource: 'Bank account', id: input.bank_account_id } });

  const started = Date.now();
  const books = await loadRepairScope(db, orgId, account.id, input.counterparty_id);
  ctx.log.info({
    transactions: books.transactions.length, entries: books.entries.length, links: books.links.length, ms: Date.now() - started,
  }, 'repair scope loaded');

  const result = planLinkRepair({
    account,
    counterparty_id: input.counterparty_id,
    as_of: input.as_of ?? utcDate(data.requested_at),
    settlement_accounts: org.settlement_accounts,
    ...books,
  });
  if (result.outcome === 'blocked') {
    return answer(data.operation, { outcome: 'blocked', blockers: result.blockers, plan: null, plan_hash: null });
  }
  if (result.outcome === 'noop') {
    return answer(data.operation, { outcome: 'noop', blockers: [], plan: result.plan, plan_hash: result.plan_hash });
  }

  // Pending conflicts need no check before this: a repair's checks have no
  // order to keep, and commitStaged meets any holder when it takes the locks.
  return answerDecision(ctx, 'ledger_link_repair', {
    outcome: 'staged',
    claim: result.claim,
    plan: result.plan,
    plan_hash: result.plan_hash,
    preconditions: [{ collection: 'orgs', id: org.id, version: org.version }, ...result.preconditions],
  }, { extraData: { blockers: [] } });
}

interface RepairBooks {
  transactions: BankTransaction[];
  entries: LedgerEntry[];
  links: BankLink[];
}

/**
 * What planLinkRepair needs to see (its LinkRepairInput): every transaction of
 * the account with the counterparty (any date: the date decides the scope),
 * every entry of the counterparty, the links of those transactions and the
 * links to those entries (from any transaction), and every other entry such a
 * link points to. Each read is selective (see where-in.ts for lists of ids).
 */
async function loadRepairScope(db: Db, orgId: string, accountId: string, counterpartyId: string): Promise<RepairBooks> {
  const [transactions, entries] = await Promise.all([
    findTransactions(db, orgId, { bank_account_id: accountId, counterparty_id: counterpartyId }),
    findEntries(db, orgId, { counterparty_id: counterpartyId }),
  ]);
  const [linksOfTransactions, linksToEntries] = await Promise.all([
    findLinksWhereIn(db, orgId, 'bank_transaction_id', transactions.map((t) => t.id)),
    findLinksWhereIn(db, orgId, 'ledger_entry_id', entries.map((e) => e.id)),
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

function answer(operation: string, data: Record<string, unknown>): JobOutcome {
  return { http_status: 200, operation, data, warnings: [] };
}
