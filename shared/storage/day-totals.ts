// The trial balance's kept day totals (docs/reference/book-reads.md "Kept
// figures"; rules in shared/domain/trial-balance-days.ts): one `book_figures`
// document per organisation and day (`kind: day`), kept as the counterparty
// figures are (shared/storage/book-figures.ts): a writer bumps the days its
// records are dated on, reads those days' entries and transactions (and the
// links of those transactions, and the entries they settle), and writes each
// day's totals where its seq is still the one it bumped to.
import type { Db, Document } from 'mongodb';
import type { IsoDate } from '../domain/books.js';
import {
  bankSide,
  ledgerTransactions,
  type PostingAccount,
  type PostingBooks,
  type PostingEntry,
  type PostingLink,
  type PostingTransaction,
} from '../domain/ledger-postings.js';
import { dayRows, type DayRow } from '../domain/trial-balance-days.js';
import { findOrg } from './books-read.js';
import { readPostingBooks } from './books-whole.js';
import { collections } from './collections.js';
import { BOOK_FIGURES, newRev, writeMasters, type FigureDoc } from './figure-docs.js';
import type { BumpedRefresh } from './link-reads.js';
import { storeAdapter } from './store-adapter.js';

export const DAYS_LIST = 'days';
export const dayFigureId = (orgId: string, date: IsoDate): string => `day|${orgId}|${date}`;

/** The most days a write path reads one by one; more are read as one range of dates. */
const DAYS_ONE_BY_ONE = 8;

export const dayMaster = (orgId: string, date: IsoDate): FigureDoc => ({
  _id: dayFigureId(orgId, date),
  org_id: orgId,
  kind: 'day',
  listed_on: DAYS_LIST,
  date,
});

function withId<T>(doc: Document): T {
  const { _id, ...rest } = doc;
  return { id: _id as string, ...rest } as T;
}

const ENTRY_FIELDS = ['_id', 'entry_date', 'currency', 'lines'];
const TRANSACTION_FIELDS = ['_id', 'bank_account_id', 'booking_date', 'amount_minor', 'currency'];
const ACCOUNT_FIELDS = ['_id', 'currency', 'ledger_account', 'opening_balance_minor'];

/**
 * `fields` of the records dated on these days, by the (org_id, date) page
 * index: each day alone, or one range when there are many.
 */
async function datedRecords(
  db: Db,
  orgId: string,
  collection: string,
  key: string,
  days: readonly IsoDate[],
  fields: readonly string[],
): Promise<Document[]> {
  const port = await storeAdapter(db);
  const range = (from: IsoDate, to: IsoDate) =>
    port.fields({ collection, equalities: { org_id: orgId }, index: 'page', fields, range: { key, from, to } });
  const wanted = new Set(days);
  if (days.length <= DAYS_ONE_BY_ONE) return (await Promise.all(days.map((d) => range(d, d)))).flat();
  const sorted = [...days].sort();
  return (await range(sorted[0]!, sorted[sorted.length - 1]!)).filter((d) => wanted.has(String(d[key])));
}

/**
 * Bring the totals of these days up to date (their records as they are now),
 * once their masters are bumped (`bumped.seqs`, book-figures.ts
 * refreshFigures); `bumped.links` reads their transactions' links, shared
 * with the counterparty figures of the same refresh.
 */
export async function refreshDays(
  db: Db,
  orgId: string,
  days: ReadonlySet<IsoDate>,
  bumped: BumpedRefresh,
): Promise<void> {
  if (days.size === 0) return;
  const list = [...days];
  const { seqs, links } = bumped;
  const c = collections(db);
  const port = await storeAdapter(db);
  const [org, accountDocs, entryDocs, txnDocs] = await Promise.all([
    findOrg(db, orgId),
    port.fields({
      collection: c.bankAccounts.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ACCOUNT_FIELDS,
    }),
    datedRecords(db, orgId, c.ledgerEntries.collectionName, 'entry_date', list, ENTRY_FIELDS),
    datedRecords(db, orgId, c.bankTransactions.collectionName, 'booking_date', list, TRANSACTION_FIELDS),
  ]);
  const transactions = txnDocs.map((d) => withId<PostingTransaction>(d));
  const entries = entryDocs.map((d) => withId<PostingEntry>(d));
  const dayLinks: PostingLink[] = await links.ofTransactions(transactions.map((t) => t.id));
  // The entries those links settle, wherever they are dated: a link's posting is on the entry's settlement account.
  const known = new Set(entries.map((e) => e.id));
  const settled = [...new Set(dayLinks.map((l) => l.ledger_entry_id))].filter((id) => !known.has(id));
  const linkedEntries =
    settled.length === 0
      ? []
      : (await port.findByIds(c.ledgerEntries.collectionName, settled, { owner: orgId, fields: ENTRY_FIELDS })).map(
          (d) => withId<PostingEntry>(d),
        );
  const settlementAccounts = org?.settlement_accounts ?? [];
  const accounts = accountDocs.map((d) => withId<PostingAccount>(d));
  const postings = [
    ...ledgerTransactions({ settlementAccounts, accounts, entries, transactions: [], links: [] }),
    ...bankSide({
      settlementAccounts,
      accounts,
      entries: [...entries, ...linkedEntries],
      transactions,
      links: dayLinks,
    }),
  ];
  const rows = dayRows(postings, list);
  const writes = list.map((date) => ({
    id: dayFigureId(orgId, date),
    set: { rows: rows.get(date) ?? [], stale: '0' },
  }));
  await writeMasters(db, orgId, seqs, writes);
}

/** Every day's totals of the organisation from its whole books, stamped with `build` (shared/storage/book-figures.ts `computeBuild`). */
export async function buildDays(
  db: Db,
  orgId: string,
  settlementAccounts: readonly string[],
  build: number,
): Promise<FigureDoc[]> {
  const books: PostingBooks = await readPostingBooks(db, orgId, settlementAccounts);
  return [...dayRows(ledgerTransactions(books))].map(([date, rows]) => ({
    ...dayMaster(orgId, date),
    rows,
    stale: '0',
    seq: 0,
    build,
    rev: newRev(),
  }));
}

/** The kept days of the organisation on or before `asOf`. */
export async function readDays(
  db: Db,
  orgId: string,
  asOf: IsoDate,
): Promise<Array<{ date: IsoDate; rows: DayRow[] }>> {
  const docs = await (
    await storeAdapter(db)
  ).fields({
    collection: BOOK_FIGURES,
    equalities: { org_id: orgId, listed_on: DAYS_LIST },
    index: 'page',
    fields: ['date', 'rows'],
  });
  return docs
    .filter((d) => typeof d.date === 'string' && d.date <= asOf)
    .map((d) => ({ date: String(d.date), rows: (d.rows as DayRow[] | undefined) ?? [] }));
}

/**
 * What the opening balances derive from: every account, and each account's
 * first transaction by booking date (the (org_id, bank_account_id,
 * booking_date) page index, one row).
 */
export async function readOpeningBooks(
  db: Db,
  orgId: string,
): Promise<Pick<PostingBooks, 'accounts' | 'transactions'>> {
  const c = collections(db);
  const port = await storeAdapter(db);
  const accounts = (
    await port.fields({
      collection: c.bankAccounts.collectionName,
      equalities: { org_id: orgId },
      index: 'gin',
      fields: ACCOUNT_FIELDS,
    })
  ).map((d) => withId<PostingAccount>(d));
  const firsts = await Promise.all(
    accounts
      .filter((a) => a.opening_balance_minor !== 0)
      .map((a) =>
        port.page({
          collection: c.bankTransactions.collectionName,
          equalities: { org_id: orgId, bank_account_id: a.id },
          key: 'booking_date',
          after: null,
          direction: 1,
          limit: 1,
        }),
      ),
  );
  return {
    accounts,
    transactions: firsts.flat().map((d) => {
      const t = withId<PostingTransaction & Document>(d);
      return {
        id: t.id,
        bank_account_id: t.bank_account_id,
        booking_date: t.booking_date,
        amount_minor: t.amount_minor,
        currency: t.currency,
      };
    }),
  };
}
