// A FIFO ledger ↔ bank link repair (docs/reference/http-api.md, link repair stage).
// Only the repair's records are read, each read an indexed equality whatever the org's
// size (shared/storage/repair-records-read.ts): the account's transactions with
// the counterparty, the counterparty's entries, the links of both, and the
// entries those links point to elsewhere. The pure rule decides the rest.
import { refused } from '../../../shared/domain/decision.js';
import {
  decideLinkRepair,
  type LinkRepairInput,
  type LinkRepairPlan,
} from '../../../shared/kinds/ledger-link-repair/plan.js';
import { utcDate } from '../../../shared/domain/dates.js';
import { repairContext } from '../../../shared/kinds/ledger-link-repair/context.js';
import { findAccount } from '../../../shared/storage/books-read.js';
import { loadRepairRecords } from '../../../shared/storage/repair-records-read.js';
import type { JobContext } from '../../job-context.js';
import { stagingJob } from '../../operation/staging-job.js';

type Op = 'ledger_link_repair.stage';

/** The repair's input but the org's settlement accounts, or null when the account is not the org's. */
type RepairBooks = Omit<LinkRepairInput, 'settlement_accounts'> | null;

async function load(ctx: JobContext<Op>): Promise<RepairBooks> {
  const { db, data } = ctx;
  const { input } = data;
  const account = await findAccount(db, data.org_id, input.bank_account_id);
  if (!account) return null;
  const books = await loadRepairRecords(db, data.org_id, account.id, input.counterparty_id);
  ctx.log.info(
    { transactions: books.transactions.length, entries: books.entries.length, links: books.links.length },
    'repair records loaded',
  );
  return {
    account,
    counterparty_id: input.counterparty_id,
    as_of: input.as_of ?? utcDate(data.requested_at),
    ...books,
  };
}

export const stageLinkRepair = stagingJob<Op, RepairBooks, LinkRepairPlan>({
  kind: 'ledger_link_repair',
  load,
  decide: (books, org, { data }) =>
    books
      ? decideLinkRepair({ ...books, settlement_accounts: org.settlement_accounts }, org)
      : refused('not_found', { resource: 'Bank account', id: data.input.bank_account_id }),
  // The records the repair read: the plan's entries, transactions and why FIFO chose each target.
  context: (books, plan, org) => (books ? repairContext(plan, books, org.settlement_accounts) : {}),
  // A repair's result always names its blockers: the list, or [] when it could plan.
  resultFields: (decision) => ({ blockers: decision.outcome === 'blocked' ? decision.blockers : [] }),
});
