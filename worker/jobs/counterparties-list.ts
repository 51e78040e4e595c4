// The counterparty list of one bank account (docs/reference/book-reads.md
// "Computed figures"), one page by counterparty id, from the figures the
// worker keeps as the books change (shared/storage/book-figures.ts, rules in
// shared/domain/book-figures.ts): stale ones, or an organisation whose figures
// were never built, are brought up to date first. Read only on the books.
import type { Db } from 'mongodb';
import { counterpartyPage } from '../../shared/domain/book-figures.js';
import type { CounterpartyList } from '../../shared/contract/reads.js';
import type { CounterpartiesListInput } from '../../shared/queue/read-jobs.js';
import { readCounterpartyPage, readFresh } from '../../shared/storage/book-figures.js';
import { findAccount } from '../../shared/storage/books-read.js';
import { AppError } from '../../shared/errors.js';

export async function listCounterparties(
  db: Db,
  orgId: string,
  input: CounterpartiesListInput,
): Promise<CounterpartyList> {
  const account = { id: input.bank_account_id, currency: input.currency ?? (await accountCurrency(db, orgId, input)) };
  const page = await readFresh(db, orgId, () => readCounterpartyPage(db, orgId, account, input.after, input.limit));
  const rows = counterpartyPage(page.onAccount, page.open, page.openOf, page.namesOf, input.limit + 1);
  const items = rows.slice(0, input.limit).map((r) => ({ ...r, currency: account.currency }));
  return { items, last: rows.length > input.limit ? items[items.length - 1]!.counterparty_id : null };
}

async function accountCurrency(db: Db, orgId: string, input: CounterpartiesListInput): Promise<string> {
  const account = await findAccount(db, orgId, input.bank_account_id);
  if (!account) throw new AppError('not_found', { details: { resource: 'Bank account', id: input.bank_account_id } });
  return account.currency;
}
