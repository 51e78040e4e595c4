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

export async function listCounterparties(
  db: Db,
  orgId: string,
  input: CounterpartiesListInput,
): Promise<CounterpartyList> {
  const page = await readFresh(db, orgId, () =>
    readCounterpartyPage(db, orgId, input.bank_account_id, input.after, input.limit),
  );
  const rows = counterpartyPage(page.onAccount, page.open, page.openOf, input.limit + 1);
  const items = rows.slice(0, input.limit);
  return { items, last: rows.length > input.limit ? items[items.length - 1]!.counterparty_id : null };
}
