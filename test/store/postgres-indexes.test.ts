// The FerretDB adapter (FerretDB 1.24 on PostgreSQL) serves every hot equality
// read from a GIN expression index, never a sequential scan (docs/indexes.md).
// Two independent proofs, both after each query ran many times:
//  1. EXPLAIN EXECUTE of the SQL FerretDB 1.24.2 sends (`_jsonb -> $1 @> $2`,
//     field and value as bind parameters), prepared once on one long-lived
//     session and executed 10 times first, so the plan cache has had every
//     chance to switch to a generic plan; under the database's setting
//     (force_custom_plan) and under plan_cache_mode=auto (the indexes alone).
//  2. PostgreSQL's own counters while the real storage functions run the
//     queries through FerretDB's pooled connections: index scans go up on the
//     table's GIN indexes, sequential scans do not.
// The tables hold other organisations' rows too, as a shared store does: on a
// table of a few pages a sequential scan would rightly be the cheapest plan.
import { findDismissals } from '../../shared/storage/duplicate-dismissals.js';
// And the organisation under test got most of its rows after PostgreSQL last
// gathered statistics (docs/design/performance.md): its `org_id @> …` is then estimated at one
// row, and a read by a globally unique id must still go through that id's
// index, not the org_id one (docs/indexes.md "Reads by id alone").
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { IndexSpecification } from 'mongodb';
import pg from 'pg';
import type { Db } from 'mongodb';
import { Books } from '../helpers/books.js';
import { ferretdbHandle, ferretdbStack, ownDatabase } from '../helpers/ferretdb-adapter.js';
import { closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import { createToken, findTokenBySecret, hashSecret } from '../../shared/storage/api-tokens.js';
import { importBooks } from '../../shared/books/import.js';
import { findEntry, findLinks, findTransactions } from '../../shared/storage/books-read.js';
import { reserveKey, idempotencyRecordId } from '../../shared/storage/idempotency-keys.js';
import { INDEXES } from '../../shared/storage/indexes.js';
import { findGroupableInboxDocuments } from '../../shared/storage/inbox-read.js';
import { entriesPage, inboxDocumentsPage, listAccounts, transactionsPage } from '../../shared/storage/books-pages.js';
import { accountAmounts } from '../../shared/storage/books-whole.js';
import { ferretTables, ginIndexName } from '../../shared/storage/ferretdb/postgres-gin-indexes.js';
import { pageIndexName, type PageOrder } from '../../shared/storage/ferretdb/postgres-page-indexes.js';
import {
  fieldsSql,
  highestSql,
  latestSql,
  pageSql,
  referencesSql,
  sequenceMarksSql,
  whereSql,
  type FieldsQuery,
  type PageQuery,
  type WhereQuery,
} from '../../shared/storage/ferretdb/postgres-pages.js';
import type { Mongo } from '../../shared/storage/mongo.js';
import { acquireLocks, liveHolders, lockKeys } from '../../shared/storage/plan-locks.js';
import { findStagedOperation, insertStagedOperation } from '../../shared/storage/staged-operations.js';
import { recordStaged } from '../../shared/storage/audit-events.js';
import { FEED_BLOCK, latestSequence, listEvents } from '../../shared/storage/events.js';

const RUNS = 10;
/** PostgreSQL 15 backends flush pending statistics at most 10 s after going idle (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;
const FILLER_ORGS = 40;
const FILLER_PER_TABLE = 4000;

/** One hot read: the SQL filter FerretDB sends for it, and how the code runs it through the driver. */
interface HotQuery {
  name: string;
  collection: string;
  /** The top-level equalities, in the order FerretDB pushes them down. */
  where: Array<[field: string, value: string]>;
  /** A read by a globally unique id: the plan must use this field's GIN index and not org_id's. */
  selective?: string;
  run: () => Promise<unknown>;
}

async function counters(
  client: pg.Client,
  schema: string,
  tables: string[],
): Promise<Map<string, { seq: number; gin: number }>> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const rows = await client.query<{ relname: string; seq_scan: string; gin_scan: string | null }>(
    `SELECT t.relname, t.seq_scan, (SELECT sum(i.idx_scan) FROM pg_stat_user_indexes i
                                      WHERE i.relid = t.relid AND i.indexrelname LIKE 'bstgin\\_%') AS gin_scan
       FROM pg_stat_user_tables t WHERE t.schemaname = $1 AND t.relname = ANY($2)`,
    [schema, tables],
  );
  return new Map(rows.rows.map((r) => [r.relname, { seq: Number(r.seq_scan), gin: Number(r.gin_scan ?? 0) }]));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rows of the organisation under test written after the statistics were gathered, per table. */
const LATE_ROWS = 3000;

/** The org's rows a busy day adds without an ANALYZE (stagings, applies): links, entries, locks, operations. */
async function addLateRows(db: Db, orgId: string, tag: string): Promise<void> {
  const rows = (name: string, doc: (i: number) => Record<string, unknown>) =>
    db.collection(name).insertMany(
      Array.from({ length: LATE_ROWS }, (_, i) => ({
        _id: `${tag}_late_${name}_${i}`,
        org_id: orgId,
        ...doc(i),
      })) as never[],
    );
  await rows('bank_links', (i) => ({
    bank_transaction_id: `${tag}_late_bt_${i}`,
    ledger_entry_id: `${tag}_late_le_${i}`,
  }));
  await rows('ledger_entries', () => ({ status: 'posted', counterparty_id: `${tag}_late_cp` }));
  await rows('scope_locks', (i) => ({
    key: `${orgId}:bt:${tag}_late_bt_${i}`,
    staged_operation_id: `${tag}_late_stg`,
  }));
  await rows('staged_operations', () => ({ status: 'rejected' }));
}

/**
 * Rows of the organisation under test known to the statistics: two accounts,
 * fifty counterparties, a third reconciled, few entries reversed and few
 * documents booked. A filter that keeps most of the org's rows is rightly
 * served by walking the org's own page index; one that keeps few must get its
 * own index.
 */
const EARLY_ROWS = 1500;

async function addEarlyRows(db: Db, orgId: string, tag: string): Promise<void> {
  const day = (i: number): string =>
    new Date(Date.UTC(2025, 0, 1) + Math.floor(i / 5) * 86_400_000).toISOString().slice(0, 10);
  const rows = (name: string, doc: (i: number) => Record<string, unknown>) =>
    db.collection(name).insertMany(
      Array.from({ length: EARLY_ROWS }, (_, i) => ({
        _id: `${tag}_early_${name}_${i}`,
        org_id: orgId,
        ...doc(i),
      })) as never[],
    );
  await rows('bank_transactions', (i) => ({
    bank_account_id: `${tag}_early_ba_${i % 2}`,
    booking_date: day(i),
    counterparty_id: `${tag}_early_cp_${i % 50}`,
    status: i < EARLY_ROWS / 3 ? 'reconciled' : 'unreconciled',
    bank_reference: `${tag}_BANK_${i}`,
    version: 1,
  }));
  await rows('ledger_entries', (i) => ({
    entry_date: day(i),
    counterparty_id: `${tag}_early_cp_${i % 50}`,
    status: i % 100 === 0 ? 'reversed' : 'posted',
    reference: `${tag}_REF_${i}`,
  }));
  await rows('inbox_documents', (i) => ({
    received_at: `${day(i)}T08:00:00.000Z`,
    status: i % 20 === 0 ? 'booked' : 'open',
  }));
}

async function addFiller(db: Db, tag: string): Promise<void> {
  for (const name of [
    'api_tokens',
    'bank_accounts',
    'ledger_entries',
    'bank_transactions',
    'bank_links',
    'inbox_documents',
    'scope_locks',
    'staged_operations',
    'idempotency_keys',
    'audit_events',
    'event_sequences',
    'duplicate_dismissals',
  ]) {
    const docs = Array.from({ length: FILLER_PER_TABLE }, (_, i) => ({
      feed_block: `${tag}_${i % FILLER_ORGS}:${Math.floor(i / FILLER_ORGS / 100)}`,
      sequence: Math.floor(i / FILLER_ORGS) + 1,
      at: '2026-01-01T00:00:00.000Z',
      _id: `${tag}_${name}_${i}`,
      org_id: `${tag}_${i % FILLER_ORGS}`,
      status: 'open',
      counterparty_id: `${tag}_cp_${i % 300}`,
      bank_account_id: `${tag}_ba_${i % 80}`,
      bank_transaction_id: `${tag}_bt_${i}`,
      staged_operation_id: `${tag}_stg_${i}`,
    }));
    await db.collection(name).insertMany(docs as never[]);
  }
  // Open amounts of entries (docs/design/entry-open-amounts.md): two currencies, both directions.
  await db.collection('entry_open_amounts').insertMany(
    Array.from({ length: FILLER_PER_TABLE }, (_, i) => ({
      _id: `${tag}_entry_open_amounts_${i}`,
      org_id: `${tag}_${i % FILLER_ORGS}`,
      currency: i % 7 === 0 ? 'USD' : 'EUR',
      direction: i % 2 === 0 ? 'in' : 'out',
      open_minor: 100 + i,
      open_amount_minor: i % 2 === 0 ? 100 + i : -100 - i,
      counterparty_id: `${tag}_cp_${i % 300}`,
      entry_date: '2026-01-01',
      reference: `R-${i}`,
    })) as never[],
  );
  // Policy versions and unattended chains (read by `highest`): 100 versions or steps of each filler organisation.
  const highest = (i: number) => ({ org_id: `${tag}_${i % FILLER_ORGS}`, n: Math.floor(i / FILLER_ORGS) + 1 });
  await db.collection('approval_policies').insertMany(
    Array.from({ length: FILLER_PER_TABLE }, (_, i) => {
      const { org_id, n } = highest(i);
      return { _id: `${org_id}:${n}`, org_id, policy_version: n, rules: [] };
    }) as never[],
  );
  await db.collection('unattended_reservations').insertMany(
    Array.from({ length: FILLER_PER_TABLE }, (_, i) => {
      const { org_id, n } = highest(i);
      return { _id: `${org_id}:agent#${n}`, org_id, key: `${org_id}:agent`, seq: n, total_minor: n };
    }) as never[],
  );
}

describe('FerretDB adapter: hot reads use the PostgreSQL GIN indexes (FerretDB)', function () {
  this.timeout(180_000);
  const tag = `filler_${randomBytes(3).toString('hex')}`;
  let client: pg.Client | null = null;
  let mongo: Mongo | null = null;
  let db: Db;
  let schema: string;
  let postgresUrl: string;
  let tables: Map<string, string>;
  let queries: HotQuery[];
  /** The book pages' SQL (shared/storage/ferretdb/postgres-pages.ts), each with the page index of its own filter when it has one. */
  let pageQueries: Array<{ name: string; q: PageQuery; order?: PageOrder }>;
  /** The organisation under test, its entry and its pending plan's lock keys, for the worker's SQL reads. */
  let scopeOrg: string;
  let scopeEntry: string;
  let scopeLockKeys: string[];
  /** A statement import's apply: an account's transactions by the plan's bank references (a few of them there, most not), at two list sizes. */
  let referenceQueries: Array<{ name: string; orgId: string; account: string; references: string[] }>;

  before(async function () {
    const { s, postgresUrl: url } = await ferretdbStack(this, 'its ordinary indexes serve these reads');
    postgresUrl = url;
    // A database of its own: no other test's statements land in its tables'
    // counters. It is created after FerretDB has served for a while, as every
    // test run's database is.
    mongo = await ownDatabase(s, 'idx', postgresUrl);
    db = mongo.db;
    schema = db.databaseName;
    client = new pg.Client({ connectionString: postgresUrl, application_name: 'bookstage-index-test' });
    await client.connect();
    tables = await ferretTables(client, schema);

    await addFiller(db, tag);
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(12_000);
    const txn = books.txn(account, 12_000);
    books.link(txn, entry, 12_000);
    for (let i = 0; i < 5; i += 1)
      books.doc({
        extracted: { vendor_name: `Vendor ${i}`, invoice_number: `INV-${i}`, total_minor: 1000 + i, currency: 'EUR' },
      });
    const imported = await importBooks(db, books.file);
    expect(imported.ok).to.equal(true);
    const orgId = books.orgId;
    const { token } = await createToken(db, { org_id: orgId, actor: 'alice', scopes: ['ledger:stage'] });

    // A pending reversal as the staging job leaves it: locks, operation, idempotency record.
    const now = new Date();
    const operationId = `stg_${tag}`;
    const wanted = { subject_key: `reverse:${entry}`, entry_ids: [entry], transaction_ids: [txn] };
    expect(await acquireLocks(db, orgId, wanted, operationId, 'hash')).to.equal(true);
    await insertStagedOperation(db, {
      _id: operationId,
      org_id: orgId,
      kind: 'ledger_reversal',
      status: 'staged',
      created_by: 'alice',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
      request_id: 'req',
      idempotency_key: 'key',
      scope_key: wanted.subject_key,
      input: {},
      plan: {},
      plan_hash: 'hash',
      preconditions: [],
      warnings: [],
      history: [],
    });
    const keyDoc = {
      _id: idempotencyRecordId(orgId, 'alice', 'key'),
      org_id: orgId,
      actor: 'alice',
      request_hash: 'h',
      operation: 'ledger_reversal.stage',
      job_id: 'job',
      request_id: 'req',
      created_at: now.toISOString(),
    };
    expect((await reserveKey(db, keyDoc, now)).reserved).to.equal(true);
    // Its staging event, and enough more to fill a feed block and start the next (the feed reads whole blocks).
    const op = await findStagedOperation(db, orgId, operationId);
    for (let i = 0; i < FEED_BLOCK + 5; i += 1)
      await recordStaged(db, {
        ...op!,
        plan: { ledger_entry_id: entry, actions: [] },
        _id: i === 0 ? operationId : `${operationId}_${i}`,
      });
    const lockIds = lockKeys(orgId, wanted);
    scopeOrg = orgId;
    scopeEntry = entry;
    scopeLockKeys = lockIds;
    const counterparty = books.cp('a');
    await addEarlyRows(db, orgId, tag);
    // Statistics gathered now; then most of the org's rows arrive.
    for (const table of tables.values())
      await client.query(`ANALYZE ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`);
    await addLateRows(db, orgId, tag);

    queries = [
      {
        name: 'token lookup',
        collection: 'api_tokens',
        where: [['_id', hashSecret(token)]],
        run: () => findTokenBySecret(db, token),
      },
      {
        name: 'entry by id',
        collection: 'ledger_entries',
        where: [['_id', entry]],
        selective: '_id',
        run: () => findEntry(db, orgId, entry),
      },
      {
        name: 'links by transaction id',
        collection: 'bank_links',
        where: [['bank_transaction_id', txn]],
        selective: 'bank_transaction_id',
        run: () => findLinks(db, orgId, 'bank_transaction_id', [txn]),
      },
      // The big repair records's pass over the org's links (shared/storage/repair-records-read.ts).
      {
        name: 'links of an org',
        collection: 'bank_links',
        where: [['org_id', orgId]],
        run: () => db.collection('bank_links').find({ org_id: orgId }).toArray(),
      },
      {
        name: 'transactions by account and counterparty',
        collection: 'bank_transactions',
        where: [
          ['bank_account_id', account],
          ['counterparty_id', counterparty],
          ['org_id', orgId],
        ],
        run: () => findTransactions(db, orgId, { bank_account_id: account, counterparty_id: counterparty }),
      },
      {
        name: 'plan-lock keys',
        collection: 'scope_locks',
        where: [['key', lockIds[0]!]],
        selective: 'key',
        run: () => liveHolders(db, orgId, lockIds, new Date(), 'someone-else'),
      },
      {
        name: 'idempotency-key _id',
        collection: 'idempotency_keys',
        where: [['_id', keyDoc._id]],
        run: () => reserveKey(db, keyDoc, new Date()),
      },
      // The event feed (docs/reference/webhooks.md): the last reservations, then a page's blocks, each by one equality.
      {
        name: 'event feed: reservations of an org',
        collection: 'event_sequences',
        where: [['org_id', orgId]],
        run: () => latestSequence(db, orgId),
      },
      {
        name: 'event feed: a page',
        collection: 'audit_events',
        where: [
          ['org_id', orgId],
          ['feed_block', `${orgId}:1`],
        ],
        run: () =>
          listEvents(db, {
            org_id: orgId,
            after: FEED_BLOCK - 3,
            types: [],
            limit: 10,
            now: new Date(Date.now() + 60_000),
          }),
      },
      {
        name: 'staged operation by _id',
        collection: 'staged_operations',
        where: [['_id', operationId]],
        selective: '_id',
        run: () => findStagedOperation(db, orgId, operationId),
      },
      {
        name: 'inbox by org',
        collection: 'inbox_documents',
        where: [
          ['org_id', orgId],
          ['status', 'open'],
        ],
        run: () => findGroupableInboxDocuments(db, orgId),
      },
      {
        name: 'duplicate dismissals of an org',
        collection: 'duplicate_dismissals',
        where: [['org_id', orgId]],
        run: () => findDismissals(db, orgId),
      },
      // The book reads (docs/reference/book-reads.md): every page and figure query.
      {
        name: 'book reads: accounts of an org',
        collection: 'bank_accounts',
        where: [['org_id', orgId]],
        run: () => listAccounts(db, orgId),
      },
      {
        name: 'book reads: amounts of an account',
        collection: 'bank_transactions',
        where: [
          ['org_id', orgId],
          ['bank_account_id', account],
        ],
        run: () => accountAmounts(db, orgId, account),
      },
      {
        name: 'book reads: transaction page by account and status',
        collection: 'bank_transactions',
        where: [
          ['org_id', orgId],
          ['bank_account_id', account],
          ['status', 'unreconciled'],
        ],
        run: () =>
          transactionsPage(
            db,
            orgId,
            { bank_account_id: account, status: 'unreconciled' },
            { key: '2026-01-01', id: 'bt' },
            50,
          ),
      },
      {
        name: 'book reads: transaction page by counterparty',
        collection: 'bank_transactions',
        where: [
          ['org_id', orgId],
          ['counterparty_id', counterparty],
        ],
        run: () => transactionsPage(db, orgId, { counterparty_id: counterparty }, null, 50),
      },
      {
        name: 'book reads: entry page by counterparty and status',
        collection: 'ledger_entries',
        where: [
          ['org_id', orgId],
          ['counterparty_id', counterparty],
          ['status', 'posted'],
        ],
        run: () =>
          entriesPage(
            db,
            orgId,
            { counterparty_id: counterparty, status: 'posted' },
            { key: '2026-01-01', id: 'le' },
            50,
          ),
      },
      {
        name: 'book reads: entry page by reference',
        collection: 'ledger_entries',
        where: [
          ['org_id', orgId],
          ['reference', `REF-${entry}`],
        ],
        run: () => entriesPage(db, orgId, { reference: `REF-${entry}` }, null, 50),
      },
      {
        name: 'book reads: entry page of an org',
        collection: 'ledger_entries',
        where: [['org_id', orgId]],
        run: () => entriesPage(db, orgId, {}, null, 50),
      },
      {
        name: 'book reads: inbox document page',
        collection: 'inbox_documents',
        where: [
          ['org_id', orgId],
          ['status', 'booked'],
        ],
        run: () => inboxDocumentsPage(db, orgId, 'booked', null, 50),
      },
    ];
    const after = { key: '2025-03-01', id: 'x' };
    const early = { account: `${tag}_early_ba_1`, counterparty: `${tag}_early_cp_7` };
    const page = (
      collection: string,
      key: string,
      equalities: Record<string, string | number>,
      more: Partial<PageQuery> = {},
    ): PageQuery => ({
      collection,
      key,
      equalities: { org_id: orgId, ...equalities },
      after: null,
      direction: 1,
      limit: 51,
      ...more,
    });
    const references = (n: number): string[] =>
      Array.from({ length: n }, (_, i) => `${tag}_BANK_${i % 10 === 1 ? i : `new_${i}`}`);
    referenceQueries = [
      { name: '50 references', orgId, account: early.account, references: references(50) },
      { name: '1,000 references', orgId, account: early.account, references: references(1000) },
    ];
    pageQueries = [
      {
        name: 'transactions of an org',
        q: page('bank_transactions', 'booking_date', {}),
        order: ['org_id', 'booking_date'],
      },
      {
        name: 'transactions of an account, next page',
        q: page('bank_transactions', 'booking_date', { bank_account_id: early.account }, { after }),
        order: ['org_id', 'bank_account_id', 'booking_date'],
      },
      {
        name: 'unreconciled transactions of an account, in a date range',
        q: page(
          'bank_transactions',
          'booking_date',
          { bank_account_id: early.account, status: 'unreconciled' },
          { from: '2025-01-01', to: '2025-12-31' },
        ),
        order: ['org_id', 'bank_account_id', 'status', 'booking_date'],
      },
      {
        name: 'transactions of a counterparty',
        q: page('bank_transactions', 'booking_date', { counterparty_id: early.counterparty }, { after }),
        order: ['org_id', 'counterparty_id', 'booking_date'],
      },
      {
        name: 'unreconciled transactions',
        q: page('bank_transactions', 'booking_date', { status: 'unreconciled' }),
        order: ['org_id', 'status', 'booking_date'],
      },
      {
        name: 'transactions of an account and counterparty (no index of its own)',
        q: page('bank_transactions', 'booking_date', {
          bank_account_id: early.account,
          counterparty_id: early.counterparty,
        }),
      },
      {
        name: 'transactions of the account imported in the books',
        q: page('bank_transactions', 'booking_date', { bank_account_id: account }),
        order: ['org_id', 'bank_account_id', 'booking_date'],
      },
      // 3,000 entries of this counterparty arrived after the statistics.
      {
        name: 'entries of a counterparty loaded late, next page',
        q: page('ledger_entries', 'entry_date', { counterparty_id: `${tag}_late_cp` }, { after }),
        order: ['org_id', 'counterparty_id', 'entry_date'],
      },
      { name: 'entries of an org', q: page('ledger_entries', 'entry_date', {}), order: ['org_id', 'entry_date'] },
      {
        name: 'reversed entries',
        q: page('ledger_entries', 'entry_date', { status: 'reversed' }),
        order: ['org_id', 'status', 'entry_date'],
      },
      {
        name: 'entries by reference',
        q: page('ledger_entries', 'entry_date', { reference: `${tag}_REF_7` }),
        order: ['org_id', 'reference', 'entry_date'],
      },
      {
        name: 'inbox documents, newest first',
        q: page('inbox_documents', 'received_at', {}, { direction: -1, after }),
        order: ['org_id', 'received_at'],
      },
      {
        name: 'booked inbox documents (one in 20), newest first',
        q: page('inbox_documents', 'received_at', { status: 'booked' }, { direction: -1 }),
        order: ['org_id', 'status', 'received_at'],
      },
      // A match suggestion's candidate groups, nearest a booking date on either side (docs/reference/http-api.md §8.2).
      ...[
        { name: 'every open entry', group: {} as Record<string, string | number>, order: [] as string[] },
        { name: 'the remaining amount', group: { open_minor: 150 }, order: ['open_minor'] },
        { name: 'the counterparty', group: { counterparty_id: `${tag}_cp_7` }, order: ['counterparty_id'] },
      ].flatMap(({ name, group, order }) =>
        [
          { side: 'on or before', more: { to: '2026-01-01', direction: -1 as const } },
          { side: 'after', more: { from: '2026-01-02' } },
        ].map(({ side, more }) => ({
          name: `open entries (${name}) ${side} a booking date`,
          q: page(
            'entry_open_amounts',
            'entry_date',
            { currency: 'EUR', direction: 'in', ...group },
            { limit: 100, ...more },
          ),
          order: ['org_id', 'currency', 'direction', ...order, 'entry_date'],
        })),
      ),
    ];
    // FerretDB's connections report their counters up to 10 s after they go
    // idle (PostgreSQL 15's idle stats interval): the set-up's own table
    // scans (index builds on the new tables) must be counted before the runs.
    await sleep(STATS_SETTLE_MS);
  });

  after(async () => {
    if (client) await client.end();
    if (mongo) {
      await mongo.db.dropDatabase();
      await mongo.client.close();
    }
  });

  it('every collection in the index declarations has a table, a GIN index on _id and on each equality field, and a btree index per page order', async () => {
    const present = new Set(
      (
        await client!.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema])
      ).rows.map((r) => r.indexname),
    );
    const missing: string[] = [];
    for (const [collection, declaration] of Object.entries(INDEXES)) {
      const table = tables.get(collection);
      if (!table) {
        missing.push(`${collection} (no table)`);
        continue;
      }
      for (const field of ['_id', ...declaration.equality])
        if (!present.has(ginIndexName(table, field))) missing.push(`${collection}.${field}`);
      for (const order of declaration.pages ?? [])
        if (!present.has(pageIndexName(table, order))) missing.push(`${collection}.(${order.join(',')})`);
    }
    expect(missing).to.deep.equal([]);
  });

  it('FerretDB gets every ordinary index but the page-only ones, which its page btrees serve (docs/indexes.md)', async () => {
    const name = (spec: IndexSpecification) =>
      Object.entries(spec as Record<string, number>)
        .map(([f, d]) => `${f}_${String(d)}`)
        .join('_');
    const wrong: string[] = [];
    for (const [collection, declaration] of Object.entries(INDEXES)) {
      const present = new Set((await db.collection(collection).indexes()).map((i) => i.name));
      for (const spec of declaration.indexes)
        if (!present.has(name(spec))) wrong.push(`${collection}: ${name(spec)} missing`);
      for (const spec of declaration.pageOnly ?? [])
        if (present.has(name(spec))) wrong.push(`${collection}: ${name(spec)} made`);
    }
    expect(wrong).to.deep.equal([]);
    expect(INDEXES.entry_open_amounts!.pageOnly).to.have.length(3);
  });

  for (const mode of ['database default (force_custom_plan)', 'auto'] as const) {
    it(`EXPLAIN of FerretDB's SQL after ${RUNS} executions on one session uses a GIN index, never a Seq Scan — plan_cache_mode ${mode}`, async () => {
      await client!.query(mode === 'auto' ? 'SET plan_cache_mode = auto' : 'RESET plan_cache_mode');
      const failures: string[] = [];
      for (const [n, q] of queries.entries()) {
        const table = tables.get(q.collection)!;
        // As FerretDB 1.24.2 builds it (internal/backends/postgresql/query.go): field and JSON value as parameters.
        const filters = q.where.map((_, i) => `_jsonb -> $${2 * i + 1} @> $${2 * i + 2}`).join(' AND ');
        const statement = `hot_${n}_${mode === 'auto' ? 'auto' : 'db'}`;
        await client!.query(
          `PREPARE ${statement} AS SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE ${filters}`,
        );
        const args = q.where
          .flatMap(([field, value]) => [pg.escapeLiteral(field), pg.escapeLiteral(JSON.stringify(value))])
          .join(', ');
        for (let i = 0; i < RUNS; i += 1) await client!.query(`EXECUTE ${statement}(${args})`);
        const plan = (await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${statement}(${args})`)).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        await client!.query(`DEALLOCATE ${statement}`);
        if (/Seq Scan/.test(plan) || !/Index Scan on bstgin_|Index Scan using bstgin_/.test(plan))
          failures.push(`${q.name}:\n${plan}`);
        else if (
          q.selective &&
          (!plan.includes(ginIndexName(table, q.selective)) || plan.includes(ginIndexName(table, 'org_id')))
        ) {
          failures.push(`${q.name} (by ${q.selective}, not through org_id's index):\n${plan}`);
        }
      }
      await client!.query('RESET plan_cache_mode');
      expect(failures, failures.join('\n\n')).to.deep.equal([]);
    });
  }

  it("the book pages' SQL walks a page index in the page's order: no Seq Scan, no Sort, its own index where its filter has one", async () => {
    const failures: string[] = [];
    for (const { name, q, order } of pageQueries) {
      const table = tables.get(q.collection)!;
      const { text, values } = pageSql(schema, table, q);
      const plan = (await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      const own = order ? pageIndexName(table, order) : 'bstpage_';
      if (/Seq Scan|Sort/.test(plan) || !/Index Scan (Backward )?using bstpage_/.test(plan) || !plan.includes(own))
        failures.push(`${name}:\n${plan}`);
    }
    expect(failures, failures.join('\n\n')).to.deep.equal([]);
  });

  it("a statement import's apply reads the account's transactions by its references through a btree index: no Seq Scan; a few references by their own index", async () => {
    const table = tables.get('bank_transactions')!;
    const own = pageIndexName(table, ['org_id', 'bank_account_id', 'bank_reference']);
    const failures: string[] = [];
    for (const { name, orgId, account, references } of referenceQueries) {
      const { text, values } = referencesSql(schema, table, orgId, account, references);
      // The reference list is a literal in the plan: shortened in a failure's message.
      const plan = (await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n')
        .replace(/'\{[^}]*\}'/g, "'{…}'");
      // More references than the account has rows (1,000 on 750): PostgreSQL rightly reads the account's index range once
      // and filters it, rather than descend the index once per reference; never the table.
      const index = references.length <= 50 ? own : 'bstpage_';
      if (/Seq Scan/.test(plan) || !plan.includes(index)) failures.push(`${name}:\n${plan}`);
    }
    expect(failures, failures.join('\n\n')).to.deep.equal([]);
  });

  it("the whole-account and whole-organisation reads' SQL (account figures, counterparty list) use an index: no Seq Scan, no Sort", async () => {
    // A small organisation among many, as in a shared store (addFiller): its account, posted entries and links
    // are few of each table, so an index is the plan; an organisation that owns most of a table is rightly scanned.
    const small = `${tag}_1`;
    const fields = (
      collection: string,
      equalities: Record<string, string>,
      index: FieldsQuery['index'],
      names: string[],
    ): FieldsQuery => ({ collection, equalities, index, fields: names });
    const cases: Array<{
      name: string;
      collection: string;
      sql: (table: string) => { text: string; values: unknown[] };
      index: RegExp;
    }> = [
      {
        name: "an account's amounts and statuses (book balance, unreconciled)",
        collection: 'bank_transactions',
        index: /Index (Only )?Scan using bstpage_|Bitmap Index Scan on bstpage_/,
        sql: (t) =>
          fieldsSql(
            schema,
            t,
            fields('bank_transactions', { org_id: small, bank_account_id: `${tag}_ba_1` }, 'page', [
              'amount_minor',
              'status',
            ]),
          ),
      },
      {
        name: "an account's transactions for the counterparty list",
        collection: 'bank_transactions',
        index: /Index (Only )?Scan using bstpage_|Bitmap Index Scan on bstpage_/,
        sql: (t) =>
          fieldsSql(
            schema,
            t,
            fields('bank_transactions', { org_id: small, bank_account_id: `${tag}_ba_1` }, 'page', [
              '_id',
              'booking_date',
              'amount_minor',
              'counterparty_id',
              'counterparty_name',
            ]),
          ),
      },
      {
        name: "an organisation's posted entries",
        collection: 'ledger_entries',
        index: /Index (Only )?Scan using bstpage_|Bitmap Index Scan on bstpage_/,
        sql: (t) =>
          fieldsSql(
            schema,
            t,
            fields('ledger_entries', { org_id: small, status: 'posted' }, 'page', [
              '_id',
              'counterparty_id',
              'lines',
              'status',
            ]),
          ),
      },
      {
        name: "an organisation's open inbox for duplicate grouping",
        collection: 'inbox_documents',
        index: /Index (Only )?Scan using bstpage_|Bitmap Index Scan on bstpage_/,
        sql: (t) =>
          fieldsSql(
            schema,
            t,
            fields('inbox_documents', { org_id: small, status: 'open' }, 'page', [
              '_id',
              'received_at',
              'status',
              'file',
              'extracted',
            ]),
          ),
      },
      {
        name: "an organisation's links",
        collection: 'bank_links',
        index: /Bitmap Index Scan on bstgin_|Index Scan using bstgin_/,
        sql: (t) =>
          fieldsSql(
            schema,
            t,
            fields('bank_links', { org_id: small }, 'gin', ['bank_transaction_id', 'ledger_entry_id', 'amount_minor']),
          ),
      },
      {
        // Along the counterparty's own page index, backwards, one row each.
        name: 'the latest transaction of each counterparty (names)',
        collection: 'bank_transactions',
        index: new RegExp(
          `Index Scan Backward using ${pageIndexName(tables.get('bank_transactions')!, ['org_id', 'counterparty_id', 'booking_date'])}`,
        ),
        sql: (t) =>
          latestSql(schema, t, {
            collection: 'bank_transactions',
            equalities: { org_id: small },
            per: 'counterparty_id',
            values: [`${tag}_cp_1`, `${tag}_cp_41`, `${tag}_cp_none`],
            key: 'booking_date',
            fields: ['_id', 'booking_date', 'counterparty_id', 'counterparty_name'],
          }),
      },
    ];
    const failures: string[] = [];
    for (const { name, collection, sql, index } of cases) {
      const table = tables.get(collection)!;
      const { text, values } = sql(table);
      const plan = (await client!.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      if (/Seq Scan|Sort/.test(plan) || !index.test(plan)) failures.push(`${name}:\n${plan}`);
    }
    expect(failures, failures.join('\n\n')).to.deep.equal([]);
  });

  it("the scope reads in SQL (whereSql: the worker's, a book page's links) and the event marks use an index in a custom and in a generic plan, also for rows added after the statistics: no Seq Scan", async () => {
    const lateKeys = (prefix: string) => Array.from({ length: 50 }, (_, i) => `${tag}_late_${prefix}_${i}`);
    const reads: Array<{ name: string; q: WhereQuery }> = [
      {
        name: 'scope transactions',
        q: {
          collection: 'bank_transactions',
          equalities: { org_id: scopeOrg, bank_account_id: `${tag}_early_ba_1`, counterparty_id: `${tag}_early_cp_7` },
        },
      },
      {
        name: 'scope entries of a counterparty loaded late',
        q: { collection: 'ledger_entries', equalities: { org_id: scopeOrg, counterparty_id: `${tag}_late_cp` } },
      },
      {
        name: "links of the scope's transactions",
        q: {
          collection: 'bank_links',
          equalities: { org_id: scopeOrg },
          any: { field: 'bank_transaction_id', values: lateKeys('bt') },
        },
      },
      {
        name: "links to the scope's entries",
        q: {
          collection: 'bank_links',
          equalities: { org_id: scopeOrg },
          any: { field: 'ledger_entry_id', values: lateKeys('le') },
        },
      },
      {
        name: 'entries elsewhere by _id',
        q: {
          collection: 'ledger_entries',
          equalities: {},
          any: { field: '_id', values: [scopeEntry, `${tag}_late_ledger_entries_7`] },
        },
      },
      {
        name: "a reversal's transactions by _id",
        q: {
          collection: 'bank_transactions',
          equalities: {},
          any: { field: '_id', values: [`${tag}_late_bank_transactions_3`, `${tag}_late_bank_transactions_9`] },
        },
      },
      {
        name: 'plan-lock keys',
        q: {
          collection: 'scope_locks',
          equalities: {},
          any: { field: 'key', values: [...scopeLockKeys, ...lateKeys('bt').map((k) => `${scopeOrg}:bt:${k}`)] },
        },
      },
    ];
    const failures: string[] = [];
    // why both: the pool sends these prepared and plans them once, generically (openPostgresPages,
    // plan_cache_mode=force_generic_plan); that plan must use the index as a custom one does.
    const statements = [
      ...reads.map(({ name, q }) => ({ name, ...whereSql(schema, tables.get(q.collection)!, q) })),
      // The event reservation's marks (events.ts): the same pool, once per staging.
      {
        name: "an organisation's event sequence marks",
        ...sequenceMarksSql(schema, tables.get('event_sequences')!, scopeOrg, '2026-11-27T00:00:00.000Z'),
      },
      // `highest`: the policy in force (every staging) and an unattended chain's latest step, the first entry of their btree.
      {
        name: 'the policy in force',
        firstEntry: true,
        ...highestSql(schema, tables.get('approval_policies')!, {
          collection: 'approval_policies',
          equalities: { org_id: `${tag}_3` },
          key: 'policy_version',
        }),
      },
      {
        name: "an unattended chain's latest step",
        firstEntry: true,
        ...highestSql(schema, tables.get('unattended_reservations')!, {
          collection: 'unattended_reservations',
          equalities: { org_id: `${tag}_3`, key: `${tag}_3:agent` },
          key: 'seq',
        }),
      },
    ];
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await client!.query(`SET plan_cache_mode = ${mode}`);
      for (const [i, { name, text, values, ...read }] of statements.entries()) {
        // A prepared statement, as the pool's named ones are: EXPLAIN of unnamed parameters is always a custom plan.
        await client!.query(`PREPARE scope_read_${i} AS ${text}`);
        const literal = (v: unknown): string =>
          Array.isArray(v)
            ? `ARRAY[${v.map((x) => pg.escapeLiteral(String(x))).join(', ')}]::jsonb[]`
            : pg.escapeLiteral(String(v));
        const plan = (
          await client!.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN EXECUTE scope_read_${i}(${values.map(literal).join(', ')})`,
          )
        ).rows
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        await client!.query(`DEALLOCATE scope_read_${i}`);
        // A generic plan keeps the parameters ($1) in its conditions; a custom one has their values.
        const generic = /\$1\b/.test(plan);
        const sorts = 'firstEntry' in read && /Sort/.test(plan);
        if (/Seq Scan/.test(plan) || !/Index Scan/.test(plan) || sorts || generic !== (mode === 'force_generic_plan'))
          failures.push(`${name} (${mode}):\n${plan}`);
      }
    }
    await client!.query('RESET plan_cache_mode');
    expect(failures, failures.join('\n\n')).to.deep.equal([]);
  });

  it('an import analyses the tables it added rows to, so the planner knows the new organisation at once', async () => {
    const analyses = async (): Promise<Map<string, number>> => {
      await client!.query('SELECT pg_stat_clear_snapshot()');
      const rows = await client!.query<{ relname: string; analyze_count: string }>(
        'SELECT relname, analyze_count FROM pg_stat_user_tables WHERE schemaname = $1',
        [schema],
      );
      return new Map(rows.rows.map((r) => [r.relname, Number(r.analyze_count)]));
    };
    const before = await analyses();
    const books = new Books();
    const account = books.account();
    books.link(books.txn(account, 5_000), books.invoice(5_000), 5_000);
    // Through the adapter the service runs on FerretDB 1.x: it analyses the tables the import wrote.
    const ferretDb = await ferretdbHandle(db, postgresUrl);
    try {
      expect((await importBooks(ferretDb, books.file)).ok).to.equal(true);
    } finally {
      await closeStoreAdapter(ferretDb);
    }
    const after = await analyses();
    const grew = (collection: string) =>
      after.get(tables.get(collection)!)! - (before.get(tables.get(collection)!) ?? 0);
    // At least once: autovacuum may analyse a table as well meanwhile.
    const grown = {
      entries: grew('ledger_entries'),
      transactions: grew('bank_transactions'),
      links: grew('bank_links'),
      accounts: grew('bank_accounts'),
    };
    expect(
      Object.values(grown).every((n) => n >= 1),
      JSON.stringify(grown),
    ).to.equal(true);
  });

  it(`through FerretDB's pooled connections, ${RUNS} runs of each hot read scan GIN indexes and no table sequentially`, async () => {
    const names = [...new Set(queries.map((q) => tables.get(q.collection)!))];
    const before = await counters(client!, schema, names);
    for (const q of queries) for (let i = 0; i < RUNS; i += 1) await q.run();
    // Every statement of the runs reported, however late (see the set-up).
    await sleep(STATS_SETTLE_MS);
    const after = await counters(client!, schema, names);
    const report = queries.map((q) => {
      const table = tables.get(q.collection)!;
      return {
        query: q.name,
        gin_scans: after.get(table)!.gin - before.get(table)!.gin,
        seq_scans: after.get(table)!.seq - before.get(table)!.seq,
      };
    });
    for (const row of report) {
      expect(row.gin_scans, `${row.query}: ${JSON.stringify(report)}`).to.be.greaterThan(0);
      expect(row.seq_scans, `${row.query}: ${JSON.stringify(report)}`).to.equal(0);
    }
  });
});
