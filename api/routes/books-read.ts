// The book reads (docs/reference/book-reads.md): bank accounts, bank transactions,
// ledger entries, counterparties and inbox documents, served by the API from
// the store directly — plain indexed queries (shared/storage/books-pages.ts,
// books-whole.ts) and the pure figures of shared/domain/book-reads.ts; nothing
// is planned or grouped here: the counterparty list, a grouping over whole
// accounts, is a read job of the worker (worker/jobs/counterparties-list.ts).
// Lists page by keyset with the opaque cursors of api/cursor.ts.
import { Router, type Request, type Response } from 'express';
import type { Db } from 'mongodb';
import {
  accountFigures,
  entryView,
  transactionView,
  type EntryView,
  type TransactionView,
} from '../../shared/domain/book-reads.js';
import type { BankAccount } from '../../shared/domain/books.js';
import { utcDate } from '../../shared/domain/dates.js';
import { AppError } from '../../shared/errors.js';
import {
  bankAccountParamsSchema,
  bankTransactionParamsSchema,
  BOOKS_DEFAULT_LIMIT,
  BOOKS_NUMERIC_PARAMS,
  counterpartiesQuerySchema,
  documentParamsSchema,
  documentsQuerySchema,
  entriesQuerySchema,
  entryParamsSchema,
  ledgerAccountsQuerySchema,
  noQuerySchema,
  transactionsQuerySchema,
  type CounterpartiesQuery,
  type DocumentsQuery,
  type EntriesQuery,
  type LedgerAccountsQuery,
  type TransactionsQuery,
  trialBalanceQuerySchema,
  type TrialBalanceQuery,
} from '../../shared/schemas/books-read.js';
import { compile, type Validator } from '../../shared/schemas/validator.js';
import { findAccount, findEntry, findLinks, findOrg } from '../../shared/storage/books-read.js';
import {
  entriesPage,
  findInboxDocument,
  findTransaction,
  inboxDocumentsPage,
  listAccounts,
  transactionsPage,
  type PagePosition,
} from '../../shared/storage/books-pages.js';
import { accountAmounts } from '../../shared/storage/books-whole.js';
import { readAccountSums } from '../../shared/storage/book-figures.js';
import { figuresFromSums } from '../../shared/domain/book-figures.js';
import { ledgerAccountsPage } from '../../shared/storage/ledger-accounts.js';
import { locals } from '../context.js';
import { openCursor, sealCursor, type CursorBinding } from '../cursor.js';

import { dataToHttp, send } from '../outcome.js';
import { queryObject } from '../query-string.js';
import { runRead, type ReadDeps } from '../read-handler.js';
import { mountRoute } from './mount.js';

/** The most records a filtered page (link_state, open) looks at before it answers, possibly short, with a cursor. */
export const FILTER_SCAN_BOUND = 5000;
const SCAN_BATCH = 500;

const validTransactionsQuery = compile<TransactionsQuery>(transactionsQuerySchema, '/query');
const validEntriesQuery = compile<EntriesQuery>(entriesQuerySchema, '/query');
const validDocumentsQuery = compile<DocumentsQuery>(documentsQuerySchema, '/query');
const validCounterpartiesQuery = compile<CounterpartiesQuery>(counterpartiesQuerySchema, '/query');
const validLedgerAccountsQuery = compile<LedgerAccountsQuery>(ledgerAccountsQuerySchema, '/query');
const validTrialBalanceQuery = compile<TrialBalanceQuery>(trialBalanceQuerySchema, '/query');
const validNoQuery = compile<Record<string, never>>(noQuerySchema, '/query');
const validAccountParams = compile<{ bank_account_id: string }>(bankAccountParamsSchema, '/path');
const validTransactionParams = compile<{ bank_transaction_id: string }>(bankTransactionParamsSchema, '/path');
const validEntryParams = compile<{ entry_id: string }>(entryParamsSchema, '/path');
const validDocumentParams = compile<{ document_id: string }>(documentParamsSchema, '/path');

function valid<T>(validate: Validator<T>, value: unknown): T {
  const checked = validate(value);
  if (!checked.ok) throw new AppError('validation_failed', { errors: checked.errors });
  return checked.value;
}

const orgOf = (res: Response): string => locals(res).auth!.org_id;
const reply = (res: Response, op: string, data: unknown): void =>
  send(res, dataToHttp(op, locals(res).requestId, data));

/** The filters a cursor was issued for: the query without limit and cursor, keys sorted. */
function filterKey(query: object): string {
  const entries = Object.entries(query)
    .filter(([k]) => k !== 'limit' && k !== 'cursor')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

interface BooksCursor {
  after: PagePosition;
  filter: string;
}

function positionOf(secret: string, binding: CursorBinding, query: { cursor?: string }): PagePosition | null {
  if (query.cursor === undefined) return null;
  const opened = openCursor(secret, binding, query.cursor) as Partial<BooksCursor> | null;
  const after = opened?.after;
  if (
    !opened ||
    opened.filter !== filterKey(query) ||
    !after ||
    typeof after.key !== 'string' ||
    typeof after.id !== 'string'
  ) {
    throw new AppError('invalid_cursor', { details: { parameter: 'cursor' } });
  }
  return { key: after.key, id: after.id };
}

function cursorFor(secret: string, binding: CursorBinding, query: object, next: PagePosition | null): string | null {
  return next && sealCursor(secret, binding, { after: next, filter: filterKey(query) } satisfies BooksCursor);
}

/**
 * One page: without `keep`, `limit` records (one more read tells whether a
 * next page exists). With `keep` (a filter on computed figures), batches are
 * read and viewed until `limit` are kept or FILTER_SCAN_BOUND records were
 * looked at; the cursor then continues after the last record looked at.
 */
async function page<R extends { id: string }, V>(
  read: (after: PagePosition | null, n: number) => Promise<R[]>,
  view: (rows: R[]) => Promise<V[]>,
  key: (row: R) => string,
  keep: ((v: V) => boolean) | null,
  after: PagePosition | null,
  limit: number,
): Promise<{ items: V[]; next: PagePosition | null }> {
  const position = (r: R): PagePosition => ({ key: key(r), id: r.id });
  if (!keep) {
    const rows = await read(after, limit + 1);
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return { items: await view(shown), next: more ? position(shown[shown.length - 1]!) : null };
  }
  const items: V[] = [];
  let at = after;
  let scanned = 0;
  while (scanned < FILTER_SCAN_BOUND) {
    const want = Math.min(SCAN_BATCH, FILTER_SCAN_BOUND - scanned);
    const rows = await read(at, want);
    const views = await view(rows);
    for (const [i, v] of views.entries()) {
      scanned += 1;
      at = position(rows[i]!);
      if (keep(v)) items.push(v);
      if (items.length === limit) {
        // Full: a next page exists unless this was the very last record.
        const last = i === rows.length - 1 && rows.length < want;
        return { items, next: last ? null : at };
      }
    }
    if (rows.length < want) return { items, next: null };
  }
  return { items, next: at };
}

async function transactionViews(
  db: Db,
  orgId: string,
  rows: Awaited<ReturnType<typeof transactionsPage>>,
): Promise<TransactionView[]> {
  const links = await findLinks(
    db,
    orgId,
    'bank_transaction_id',
    rows.map((t) => t.id),
  );
  return rows.map((t) => transactionView(t, links));
}

async function entryViews(
  db: Db,
  orgId: string,
  settlement: readonly string[],
  rows: Awaited<ReturnType<typeof entriesPage>>,
): Promise<EntryView[]> {
  const links = await findLinks(
    db,
    orgId,
    'ledger_entry_id',
    rows.map((e) => e.id),
  );
  return rows.map((e) => entryView(e, links, settlement));
}

/**
 * Accounts with their figures: the sums the worker keeps (docs/reference/book-reads.md "Kept figures"), one read by
 * id; an account whose sums are not kept or stale is computed from its transactions, the same figures.
 */
async function accountViews(db: Db, orgId: string, accounts: readonly BankAccount[]) {
  const kept = await readAccountSums(
    db,
    orgId,
    accounts.map((a) => a.id),
  );
  return Promise.all(
    accounts.map(async (account) => {
      const sums = kept.get(account.id);
      return {
        ...account,
        ...(sums
          ? figuresFromSums(account.opening_balance_minor, sums)
          : accountFigures(account.opening_balance_minor, await accountAmounts(db, orgId, account.id))),
      };
    }),
  );
}

async function settlementAccounts(db: Db, orgId: string): Promise<string[]> {
  return (await findOrg(db, orgId))?.settlement_accounts ?? [];
}

/**
 * `reads`: the read queue (the counterparty list) and the cursor secret; absent only in apps built without a queue
 * (tests of the HTTP layer), where those answer 503.
 */
export function booksReadRoutes(db: Db, reads: ReadDeps | undefined): Router {
  const cursorSecret = reads?.cursorSecret;
  const router = Router();
  const read = (path: string, op: string, handle: (req: Request, res: Response, orgId: string) => Promise<unknown>) => {
    mountRoute(router, db, op, async (req, res) => {
      reply(res, op, await handle(req, res, orgOf(res)));
    });
  };
  const secret = (): string => {
    if (cursorSecret === undefined)
      throw new AppError('service_unavailable', { details: { reason: 'cursor_secret_not_configured' } });
    return cursorSecret;
  };

  read('/api/v1/cli/bank-accounts', 'bank_accounts.list', async (req, _res, orgId) => {
    valid(validNoQuery, queryObject(req.query, []));
    const accounts = await listAccounts(db, orgId);
    return { items: await accountViews(db, orgId, accounts) };
  });

  read('/api/v1/cli/bank-accounts/:bank_account_id', 'bank_accounts.show', async (req, _res, orgId) => {
    const { bank_account_id } = valid(validAccountParams, { bank_account_id: req.params.bank_account_id });
    const account = await findAccount(db, orgId, bank_account_id);
    if (!account) throw new AppError('not_found', { details: { resource: 'Bank account', id: bank_account_id } });
    return (await accountViews(db, orgId, [account]))[0];
  });

  read('/api/v1/cli/bank-transactions', 'bank_transactions.list', async (req, _res, orgId) => {
    const query = valid(validTransactionsQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const binding: CursorBinding = { list: 'bank_transactions', org_id: orgId };
    const after = positionOf(secret(), binding, query);
    const state = query.link_state;
    const result = await page(
      (at, n) => transactionsPage(db, orgId, query, at, n),
      (rows) => transactionViews(db, orgId, rows),
      (t) => t.booking_date,
      state ? (v) => v.link_state === state : null,
      after,
      query.limit ?? BOOKS_DEFAULT_LIMIT,
    );
    return { items: result.items, next_cursor: cursorFor(secret(), binding, query, result.next) };
  });

  read('/api/v1/cli/bank-transactions/:bank_transaction_id', 'bank_transactions.show', async (req, _res, orgId) => {
    const { bank_transaction_id } = valid(validTransactionParams, {
      bank_transaction_id: req.params.bank_transaction_id,
    });
    const transaction = await findTransaction(db, orgId, bank_transaction_id);
    if (!transaction)
      throw new AppError('not_found', { details: { resource: 'Bank transaction', id: bank_transaction_id } });
    return (await transactionViews(db, orgId, [transaction]))[0];
  });

  read('/api/v1/cli/ledger/entries', 'ledger_entries.list', async (req, _res, orgId) => {
    const query = valid(validEntriesQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const binding: CursorBinding = { list: 'ledger_entries', org_id: orgId };
    const after = positionOf(secret(), binding, query);
    const settlement = await settlementAccounts(db, orgId);
    const open = query.open;
    const result = await page(
      (at, n) => entriesPage(db, orgId, query, at, n),
      (rows) => entryViews(db, orgId, settlement, rows),
      (e) => e.entry_date,
      open ? (v) => v.open === (open === 'true') : null,
      after,
      query.limit ?? BOOKS_DEFAULT_LIMIT,
    );
    return { items: result.items, next_cursor: cursorFor(secret(), binding, query, result.next) };
  });

  read('/api/v1/cli/ledger/entries/:entry_id', 'ledger_entries.show', async (req, _res, orgId) => {
    const { entry_id } = valid(validEntryParams, { entry_id: req.params.entry_id });
    // The org's settlement accounts beside the entry: one round trip, not two.
    const [entry, settlement] = await Promise.all([findEntry(db, orgId, entry_id), settlementAccounts(db, orgId)]);
    if (!entry) throw new AppError('not_found', { details: { resource: 'Ledger entry', id: entry_id } });
    return (await entryViews(db, orgId, settlement, [entry]))[0];
  });

  read('/api/v1/cli/ledger/accounts', 'ledger_accounts.list', async (req, _res, orgId) => {
    const query = valid(validLedgerAccountsQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const binding: CursorBinding = { list: 'ledger_accounts', org_id: orgId };
    const after = positionOf(secret(), binding, query);
    // A code is unique in its organisation: the code alone is the position.
    const result = await page(
      async (at, n) => (await ledgerAccountsPage(db, orgId, at?.key ?? null, n)).map((a) => ({ id: a.code, a })),
      (rows) => Promise.resolve(rows.map((r) => r.a)),
      (r) => r.id,
      null,
      after,
      query.limit ?? BOOKS_DEFAULT_LIMIT,
    );
    return { items: result.items, next_cursor: cursorFor(secret(), binding, query, result.next) };
  });

  read('/api/v1/cli/ledger/trial-balance', 'ledger.trial_balance', async (req, res) => {
    const query = valid(validTrialBalanceQuery, queryObject(req.query, []));
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    // Every entry, transaction and link of the organisation: computed by the worker.
    return runRead(reads, res, 'ledger.trial_balance', { as_of: query.as_of ?? utcDate(new Date()) });
  });

  read('/api/v1/cli/counterparties', 'counterparties.list', async (req, res, orgId) => {
    const query = valid(validCounterpartiesQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const { bank_account_id } = query;
    const binding: CursorBinding = { list: 'counterparties', org_id: orgId };
    // A counterparty id is unique in its list: it alone is the position.
    const after = positionOf(secret(), binding, query)?.key ?? null;
    const account = await findAccount(db, orgId, bank_account_id);
    if (!account) throw new AppError('not_found', { details: { resource: 'Bank account', id: bank_account_id } });
    if (!reads) throw new AppError('service_unavailable', { details: { reason: 'read_queue_not_configured' } });
    // From the figures the worker keeps (docs/reference/book-reads.md "Kept figures"): read by the worker.
    const result = await runRead(reads, res, 'counterparties.list', {
      bank_account_id,
      currency: account.currency,
      after,
      limit: query.limit ?? BOOKS_DEFAULT_LIMIT,
    });
    const next = result.last === null ? null : { key: result.last, id: result.last };
    return { items: result.items, next_cursor: cursorFor(secret(), binding, query, next) };
  });

  read('/api/v1/cli/bookkeeping/inbox/documents', 'inbox_documents.list', async (req, _res, orgId) => {
    const query = valid(validDocumentsQuery, queryObject(req.query, BOOKS_NUMERIC_PARAMS));
    const binding: CursorBinding = { list: 'inbox_documents', org_id: orgId };
    const after = positionOf(secret(), binding, query);
    const result = await page(
      (at, n) => inboxDocumentsPage(db, orgId, query.status, at, n),
      (rows) => Promise.resolve(rows),
      (d) => d.received_at,
      null,
      after,
      query.limit ?? BOOKS_DEFAULT_LIMIT,
    );
    return { items: result.items, next_cursor: cursorFor(secret(), binding, query, result.next) };
  });

  read('/api/v1/cli/bookkeeping/inbox/documents/:document_id', 'inbox_documents.show', async (req, _res, orgId) => {
    const { document_id } = valid(validDocumentParams, { document_id: req.params.document_id });
    const document = await findInboxDocument(db, orgId, document_id);
    if (!document) throw new AppError('not_found', { details: { resource: 'Inbox document', id: document_id } });
    return document;
  });
  return router;
}
