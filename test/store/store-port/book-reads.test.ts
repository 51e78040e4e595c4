// The book pages read from PostgreSQL's own index by the FerretDB adapter answer
// exactly what the MongoDB query answers (docs/indexes.md "Pages from
// PostgreSQL's own index"): every filter combination of the book reads
// (test/http/books-read.test.ts), with and without a date range, walked page
// by page at several page sizes through both paths, must give the same
// documents, key for key and in the same order, so the same cursors. The data
// is made to catch what differs between the two: ids whose byte order is not
// a language's order (`Z` < `a` < `é`), many ties on the sort key, another
// organisation with the same field values, and values of every type FerretDB
// stores (those the decoder does not take are read by `_id`).
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Long, ObjectId, type Db } from 'mongodb';
import {
  entriesPage,
  findTransaction,
  inboxDocumentsPage,
  transactionsPage,
  type PagePosition,
} from '../../../shared/storage/books-pages.js';
import {
  findAccount,
  findEntry,
  findLinks,
  findOrg,
  findTransactionsByIds,
} from '../../../shared/storage/books-read.js';
import { currentInboxVersion, INITIAL_INBOX_VERSION } from '../../../shared/storage/inbox-version.js';
import { findGroupableInboxDocuments } from '../../../shared/storage/inbox-read.js';
import { findTakenIds } from '../../../shared/storage/books-write.js';
import { latestNames } from '../../../shared/domain/book-reads.js';
import { accountAmounts, namingTransactions, readCounterpartyBooks } from '../../../shared/storage/books-whole.js';
import { closeStoreAdapter, storeAdapter } from '../../../shared/storage/store-adapter.js';
import { connectMongo } from '../../../shared/storage/mongo.js';
import {
  accountTransactionsByReference,
  accountTransactionsForImport,
} from '../../../shared/storage/statement-import-read.js';
import { bankReferenceClashes } from '../../../shared/kinds/statement-import/apply-check.js';
import type { StatementImportPlan } from '../../../shared/kinds/statement-import/plan.js';
import {
  EVENT_SETTLE_MS,
  latestSequence,
  latestSettledSequence,
  reserveEvent,
} from '../../../shared/storage/events.js';
import { ferretdbHandle, ferretdbStack, sqlStats } from '../../helpers/ferretdb-adapter.js';
import { stack } from '../../helpers/stack.js';

/** One page read through the handle `on` (the mongo adapter or the FerretDB one). */
type Read = (after: PagePosition | null, limit: number, on: Db) => Promise<Array<{ id: string }>>;

/** Suffixes whose byte order (C) differs from a language collation's: digits < upper < `_` < lower < non-ASCII. */
const SUFFIXES = ['a1', 'Z1', 'é1', '_1', 'z1', 'A1', '01', 'Ω1', 'b1', 'B1', 'ä1', 'aa', 'a', 'Aa'];
const DATES = ['2026-02-01', '2026-02-03', '2026-02-03', '2026-02-05'];
const SUBSETS = <T extends string>(keys: readonly T[]): T[][] =>
  keys.reduce<T[][]>((all, k) => [...all, ...all.map((s) => [...s, k])], [[]]);
const RANGES: Array<{ from?: string; to?: string }> = [
  {},
  { from: '2026-02-03' },
  { to: '2026-02-03' },
  { from: '2026-02-02', to: '2026-02-04' },
];
const LIMITS = [1, 4, 500];

/** Every page of `read` through one path: the documents of each page, in order. */
async function walk(read: Read, key: string, limit: number, on: Db): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  let after: PagePosition | null = null;
  for (;;) {
    const page = await read(after, limit, on);
    pages.push(page);
    if (page.length < limit) return pages;
    const last = page[page.length - 1]!;
    after = { key: (last as unknown as Record<string, string>)[key]!, id: last.id };
    expect(pages.length, 'too many pages').to.be.below(200);
  }
}

async function load(db: Db, orgId: string, uid: string, rich: boolean): Promise<void> {
  const cp = (i: number): string | null => (i % 5 === 4 ? null : `cp_${uid}_${i % 3}`);
  // The same account and counterparty ids in both organisations: only org_id tells them apart.
  const transactions = SUFFIXES.flatMap((s, i) =>
    [0, 1].map((j) => ({
      _id: `bt_${uid}_${orgId === `org_${uid}` ? '' : 'x'}${s}${j}`,
      org_id: orgId,
      bank_account_id: `ba_${uid}_${(i + j) % 2 === 0 ? 'A' : 'b'}`,
      booking_date: DATES[(i + j) % DATES.length],
      amount_minor: i * 100 - 700 + j,
      currency: 'EUR',
      counterparty_id: cp(i + j),
      counterparty_name: `Näme ${s}`,
      remittance_info: '',
      status: (i + 2 * j) % 3 === 0 ? 'reconciled' : 'unreconciled',
      reconciliation_id: null,
      version: 1,
    })),
  );
  if (rich) {
    // What FerretDB can store beyond the books' own fields: doubles (and -0), dates, arrays of mixed values, empty ones, and types read by _id.
    Object.assign(transactions[0]!, {
      bank_reference: null,
      ratio: 0.1 + 0.2,
      tiny: 1e-7,
      negative_zero: -0,
      big: 2 ** 40,
      when: new Date('2026-02-01T10:00:00.123Z'),
      nested: { b: [1, { c: 'x', d: [] }, true], a: {} },
    });
    Object.assign(transactions[1]!, { source: new ObjectId('65f1a2b3c4d5e6f708192a3b') });
    Object.assign(transactions[2]!, { huge: Long.fromString('9007199254740993') });
  }
  await db.collection('bank_transactions').insertMany(transactions as never[]);
  const entries = SUFFIXES.map((s, i) => ({
    _id: `le_${uid}_${orgId === `org_${uid}` ? '' : 'x'}${s}`,
    org_id: orgId,
    entry_date: DATES[i % DATES.length],
    description: `Invoice ${s}`,
    reference: `REF-${i % 4}`,
    counterparty_id: `cp_${uid}_${i % 3}`,
    currency: 'EUR',
    lines: [
      { account: '1400', debit_minor: 100 + i, credit_minor: 0 },
      { account: '8400', debit_minor: 0, credit_minor: 100 + i },
    ],
    status: i % 4 === 1 ? 'reversed' : 'posted',
    reversal_of: null,
    reversed_by: null,
    version: 1,
  }));
  await db.collection('ledger_entries').insertMany(entries as never[]);
  const documents = SUFFIXES.map((s, i) => ({
    _id: `doc_${uid}_${orgId === `org_${uid}` ? '' : 'x'}${s}`,
    org_id: orgId,
    received_at: `2026-03-0${1 + (i % 3)}T08:00:00.000Z`,
    source: 'upload',
    status: i % 3 === 0 ? 'booked' : 'open',
    file: { sha256: 'f'.repeat(64), name: `${s}.pdf`, size: 1000 + i, mime: 'application/pdf' },
    version: 1,
  }));
  await db.collection('inbox_documents').insertMany(documents as never[]);
}

describe('FerretDB adapter: book pages from PostgreSQL equal the MongoDB query, page for page', function () {
  this.timeout(300_000);
  const uid = randomBytes(3).toString('hex');
  const orgId = `org_${uid}`;
  let db: Db;
  let sql: Db;
  let postgresUrl: string;
  let sqlCalls = 0;

  before(async function () {
    const stack = await ferretdbStack(this, 'the pages are its own queries there');
    db = stack.s.db;
    postgresUrl = stack.postgresUrl;
    sql = await ferretdbHandle(db, postgresUrl);
    await load(db, orgId, uid, true);
    await load(db, `org_${uid}_other`, uid, false);
  });

  after(async () => {
    if (sql) await closeStoreAdapter(sql);
  });

  /** Both paths walk `read` at every page size; the FerretDB one must have answered every page itself. */
  async function same(read: Read, key: string, what: string): Promise<number> {
    let documents = 0;
    for (const limit of LIMITS) {
      const viaMongo = await walk(read, key, limit, db);
      const servedBefore = sqlStats(sql).served;
      const viaPostgres = await walk(read, key, limit, sql);
      sqlCalls += viaPostgres.length;
      expect(sqlStats(sql).served - servedBefore, `${what}: pages answered from PostgreSQL`).to.equal(
        viaPostgres.length,
      );
      expect(viaPostgres, `${what}, limit ${limit}`).to.deep.equal(viaMongo);
      // Key order too: the HTTP answer is this object serialised.
      expect(JSON.stringify(viaPostgres), `${what}, limit ${limit}`).to.equal(JSON.stringify(viaMongo));
      documents = viaMongo.flat().length;
    }
    return documents;
  }

  it('transactions: every subset of account, status and counterparty, with each date range', async () => {
    const values = { bank_account_id: `ba_${uid}_A`, status: 'unreconciled', counterparty_id: `cp_${uid}_1` } as const;
    let seen = 0;
    for (const fields of SUBSETS(Object.keys(values) as Array<keyof typeof values>)) {
      for (const range of RANGES) {
        const filter = { ...Object.fromEntries(fields.map((f) => [f, values[f]])), ...range };
        seen += await same(
          (after, n, on) => transactionsPage(on, orgId, filter, after, n),
          'booking_date',
          `transactions ${JSON.stringify(filter)}`,
        );
      }
    }
    // The reconciled ones too, and a filter nothing matches.
    seen += await same(
      (after, n, on) => transactionsPage(on, orgId, { bank_account_id: `ba_${uid}_b`, status: 'reconciled' }, after, n),
      'booking_date',
      'reconciled of b',
    );
    expect(
      await same(
        (after, n, on) => transactionsPage(on, orgId, { counterparty_id: 'cp_nobody' }, after, n),
        'booking_date',
        'no match',
      ),
    ).to.equal(0);
    expect(seen, 'the filters selected something').to.be.greaterThan(100);
  });

  it('entries: every subset of counterparty, status and reference, with each date range', async () => {
    const values = { counterparty_id: `cp_${uid}_0`, status: 'posted', reference: 'REF-0' } as const;
    let seen = 0;
    for (const fields of SUBSETS(Object.keys(values) as Array<keyof typeof values>)) {
      for (const range of RANGES) {
        const filter = { ...Object.fromEntries(fields.map((f) => [f, values[f]])), ...range };
        seen += await same(
          (after, n, on) => entriesPage(on, orgId, filter, after, n),
          'entry_date',
          `entries ${JSON.stringify(filter)}`,
        );
      }
    }
    seen += await same(
      (after, n, on) => entriesPage(on, orgId, { status: 'reversed' }, after, n),
      'entry_date',
      'reversed entries',
    );
    expect(seen).to.be.greaterThan(50);
  });

  it('inbox documents, newest first: without a filter and by each status', async () => {
    for (const status of [undefined, 'open', 'booked']) {
      expect(
        await same(
          (after, n, on) => inboxDocumentsPage(on, orgId, status, after, n),
          'received_at',
          `documents ${status ?? 'all'}`,
        ),
      ).to.be.greaterThan(0);
    }
  });

  it('documents with types the decoder does not take (ObjectId, a long beyond 2^53) were read by _id, and every page was served', () => {
    expect(sqlStats(sql).by_id).to.be.greaterThan(0);
    expect(sqlStats(sql).declined).to.equal(0);
    expect(sqlStats(sql).served).to.equal(sqlCalls);
  });

  it('a database whose collection has no table yet is read through FerretDB (the page is declined, not failed)', async () => {
    const s = await stack();
    const url = new URL(s.config.mongoUrl);
    url.pathname = `/${s.db.databaseName}_pages_${uid}`;
    const other = await connectMongo(url.toString());
    try {
      const otherSql = await ferretdbHandle(other.db, postgresUrl);
      try {
        expect(await transactionsPage(otherSql, orgId, {}, null, 10)).to.deep.equal([]);
        expect(sqlStats(otherSql).declined).to.equal(1);
      } finally {
        await closeStoreAdapter(otherSql);
      }
    } finally {
      await other.db.dropDatabase();
      await other.client.close();
    }
  });

  it("a page's links: one SQL query answers exactly what the FerretDB reads answer, the organisation's only", async () => {
    const tx = (suffix: string): string => `bt_${uid}_${suffix}0`;
    const entry = (suffix: string): string => `le_${uid}_${suffix}`;
    const link = (i: number, org: string, transaction: string, ledgerEntry: string) => ({
      _id: `ln_${uid}_${i}`,
      org_id: org,
      bank_transaction_id: transaction,
      ledger_entry_id: ledgerEntry,
      amount_minor: 100 + i,
      created_at: '2026-03-01T00:00:00.000Z',
      created_by: 'alice',
      version: 1,
    });
    await db.collection('bank_links').insertMany([
      link(1, orgId, tx('a1'), entry('a1')),
      link(2, orgId, tx('a1'), entry('Z1')),
      link(3, orgId, tx('Z1'), entry('Z1')),
      link(4, orgId, tx('é1'), entry('é1')),
      link(5, orgId, tx('b1'), entry('b1')),
      // Another organisation's link on the same keys: never part of the answer.
      link(6, `org_${uid}_other`, tx('a1'), entry('a1')),
    ] as never[]);
    const byId = <T extends { id: string }>(links: T[]): T[] => [...links].sort((a, b) => (a.id < b.id ? -1 : 1));
    const cases = [
      { field: 'bank_transaction_id', keys: [tx('a1'), tx('Z1'), tx('é1'), tx('nothing')], expected: [1, 2, 3, 4] },
      { field: 'ledger_entry_id', keys: [entry('Z1'), entry('é1')], expected: [2, 3, 4] },
    ] as const;
    for (const { field, keys, expected } of cases) {
      const viaFerret = await findLinks(db, orgId, field, keys);
      const served = sqlStats(sql).served;
      const viaPostgres = await findLinks(sql, orgId, field, keys);
      expect(sqlStats(sql).served - served, `${field}: answered from PostgreSQL in one query`).to.equal(1);
      expect(byId(viaPostgres), field).to.deep.equal(byId(viaFerret));
      expect(
        byId(viaPostgres).map((l) => l.id),
        field,
      ).to.deep.equal(expected.map((i) => `ln_${uid}_${i}`));
    }
  });

  it("whole-account and whole-organisation reads (account figures, counterparty list): the SQL path answers what the driver's projected finds answer", async () => {
    const org = `org_${uid}_whole`;
    const other = `org_${uid}_whole_x`;
    const account = `ba_${uid}_W`;
    const txn = (n: string, o: string, extra: Record<string, unknown>) => ({
      _id: `bt_${uid}_w${n}`,
      org_id: o,
      bank_account_id: account,
      booking_date: '2026-02-01',
      amount_minor: 100,
      currency: 'EUR',
      counterparty_id: `cp_${uid}_w1`,
      counterparty_name: `Name ${n}`,
      remittance_info: '',
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
      ...extra,
    });
    await db.collection('bank_transactions').insertMany([
      txn('1', org, { amount_minor: -2500, booking_date: '2026-02-03' }),
      // Every numeric type FerretDB stores: a double with a fraction, an int64 within 2^53, one beyond (read by _id, a Long as the driver gives it).
      txn('2', org, { amount_minor: 12.5, status: 'reconciled' }),
      txn('3', org, { amount_minor: Long.fromNumber(2 ** 40), counterparty_id: null }),
      txn('4', org, { amount_minor: Long.fromString('9007199254740993'), counterparty_id: `cp_${uid}_w2` }),
      // Fields absent: a projection leaves them out on both paths.
      (({ counterparty_name: _n, status: _s, ...rest }) => rest)(txn('5', org, { booking_date: '2026-02-05' })),
      txn('6', org, {
        bank_account_id: `ba_${uid}_V`,
        counterparty_id: `cp_${uid}_w3`,
        booking_date: '2026-03-01',
        counterparty_name: 'Elsewhere',
      }),
      txn('7', org, {
        bank_account_id: `ba_${uid}_V`,
        counterparty_id: `cp_${uid}_w3`,
        booking_date: '2026-03-02',
        counterparty_name: 'Elsewhere, later',
      }),
      txn('8', other, {}),
    ] as never[]);
    const entry = (n: string, o: string, extra: Record<string, unknown>) => ({
      _id: `le_${uid}_w${n}`,
      org_id: o,
      entry_date: '2026-01-10',
      description: '',
      reference: `R${n}`,
      counterparty_id: `cp_${uid}_w1`,
      currency: 'EUR',
      lines: [
        { account: '1400', debit_minor: 700, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 700 },
      ],
      status: 'posted',
      reversal_of: null,
      reversed_by: null,
      version: 1,
      ...extra,
    });
    await db.collection('ledger_entries').insertMany([
      entry('1', org, {}),
      entry('2', org, {
        counterparty_id: `cp_${uid}_w3`,
        lines: [{ account: '1400', debit_minor: 0.5, credit_minor: Long.fromNumber(3) }],
      }),
      entry('3', org, { status: 'reversed' }),
      entry('4', org, {
        lines: [{ account: '1400', debit_minor: Long.fromString('9007199254740993'), credit_minor: 0 }],
      }),
      entry('5', other, {}),
    ] as never[]);
    const link = (n: string, o: string, extra: Record<string, unknown>) => ({
      _id: `ln_${uid}_w${n}`,
      org_id: o,
      bank_transaction_id: `bt_${uid}_w1`,
      ledger_entry_id: `le_${uid}_w1`,
      amount_minor: 300,
      created_at: '2026-03-01T00:00:00.000Z',
      created_by: 'a',
      version: 1,
      ...extra,
    });
    await db
      .collection('bank_links')
      .insertMany([
        link('1', org, {}),
        link('2', org, { amount_minor: 0.25, ledger_entry_id: `le_${uid}_w2` }),
        link('3', other, {}),
      ] as never[]);

    const sorted = <T>(items: T[]): T[] => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    const served = sqlStats(sql).served;
    const byId = sqlStats(sql).by_id;
    for (const acc of [account, `ba_${uid}_V`, `ba_${uid}_none`]) {
      expect(sorted(await accountAmounts(sql, org, acc)), acc).to.deep.equal(
        sorted(await accountAmounts(db, org, acc)),
      );
      const viaSql = await readCounterpartyBooks(sql, org, acc);
      const viaDriver = await readCounterpartyBooks(db, org, acc);
      for (const part of ['transactions', 'entries', 'links'] as const)
        expect(sorted<unknown>(viaSql[part]), `${acc} ${part}`).to.deep.equal(sorted<unknown>(viaDriver[part]));
    }
    const books = await readCounterpartyBooks(sql, org, account);
    expect(books.transactions.map((t) => t.id).sort()).to.deep.equal(
      ['1', '2', '3', '4', '5'].map((n) => `bt_${uid}_w${n}`),
    );
    expect(
      books.transactions.find((t) => t.id === `bt_${uid}_w4`)!.amount_minor,
      'a long beyond 2^53 is never read as a number',
    ).to.be.instanceOf(Long);
    expect(books.transactions.find((t) => t.id === `bt_${uid}_w2`)!.amount_minor).to.equal(12.5);
    expect(books.entries.map((e) => e.id).sort()).to.deep.equal(['1', '2', '4'].map((n) => `le_${uid}_w${n}`));
    expect(books.links.map((l) => l.amount_minor).sort()).to.deep.equal([0.25, 300]);

    const counterparties = [`cp_${uid}_w1`, `cp_${uid}_w2`, `cp_${uid}_w3`, `cp_${uid}_none`];
    const namesSql = await namingTransactions(sql, org, counterparties);
    const namesDriver = await namingTransactions(db, org, counterparties);
    expect(latestNames(namesSql)).to.deep.equal(latestNames(namesDriver));
    expect(latestNames(namesSql)).to.deep.equal(
      new Map([
        [`cp_${uid}_w1`, null],
        [`cp_${uid}_w2`, 'Name 4'],
        [`cp_${uid}_w3`, 'Elsewhere, later'],
      ]),
    );
    // PostgreSQL sends one row per counterparty (its latest), the driver every one.
    expect(namesSql.length).to.equal(3);
    expect(sqlStats(sql).served - served, 'each read answered from PostgreSQL').to.equal(3 * 4 + 3 + 1);
    expect(sqlStats(sql).by_id - byId, 'the documents with a long beyond 2^53 were read by _id').to.be.greaterThan(0);
  });

  it("a statement import's read of the whole account: the SQL path gives what the driver's projected find gives, the account's only", async () => {
    const account = `ba_${uid}_stage`;
    const tx = (id: string, fields: Record<string, unknown>, org = orgId) => ({
      _id: `bt_${uid}_s${id}`,
      org_id: org,
      bank_account_id: account,
      booking_date: '2026-02-01',
      amount_minor: 100,
      currency: 'EUR',
      counterparty_id: null,
      counterparty_name: 'X',
      remittance_info: '',
      bank_reference: `S-${id}`,
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
      ...fields,
    });
    await db.collection('bank_transactions').insertMany([
      tx('1', {
        amount_minor: -2_500,
        counterparty_id: `cp_${uid}_s`,
        counterparty_iban: 'DE89370400440532013000',
        remittance_info: 'Größe 5',
        version: 4,
      }),
      // Absent and null fields: read as null on both paths.
      (({ bank_reference: _r, counterparty_name: _n, ...rest }) => rest)(tx('2', { booking_date: '2026-02-03' })),
      tx('3', { bank_reference: null, counterparty_iban: null, remittance_info: null }),
      // Not the account's: another account, another organisation.
      tx('4', { bank_account_id: `ba_${uid}_stage_other` }),
      tx('5', {}, `org_${uid}_other`),
    ] as never[]);
    const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    const viaFerret = await accountTransactionsForImport(db, orgId, account);
    const served = sqlStats(sql).served;
    const viaPostgres = await accountTransactionsForImport(sql, orgId, account);
    expect(sqlStats(sql).served - served, 'answered from PostgreSQL').to.equal(1);
    expect(byId(viaPostgres)).to.deep.equal(byId(viaFerret));
    const row = (id: string, fields: Record<string, unknown>) => ({
      id: `bt_${uid}_s${id}`,
      booking_date: '2026-02-01',
      amount_minor: 100,
      bank_reference: `S-${id}`,
      counterparty_name: 'X',
      remittance_info: '',
      counterparty_id: null,
      counterparty_iban: null,
      version: 1,
      ...fields,
    });
    expect(byId(viaPostgres)).to.deep.equal([
      row('1', {
        amount_minor: -2_500,
        counterparty_id: `cp_${uid}_s`,
        counterparty_iban: 'DE89370400440532013000',
        remittance_info: 'Größe 5',
        version: 4,
      }),
      row('2', { booking_date: '2026-02-03', bank_reference: null, counterparty_name: null }),
      row('3', { bank_reference: null, remittance_info: null }),
    ]);
  });

  it("a statement import's staleness check: the SQL read by bank reference gives the transactions and clashes the FerretDB read gives", async () => {
    const account = `ba_${uid}_imp`;
    const tx = (id: string, fields: Record<string, unknown>, org = orgId) => ({
      _id: `bt_${uid}_${id}`,
      org_id: org,
      bank_account_id: account,
      booking_date: '2026-02-01',
      amount_minor: 100,
      currency: 'EUR',
      counterparty_id: null,
      counterparty_name: 'X',
      remittance_info: '',
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
      ...fields,
    });
    await db.collection('bank_transactions').insertMany([
      // Clashes: references the plan adds, reached the account meanwhile (one updated since: version 3); byte-order-distinct references.
      tx('r1', { bank_reference: 'REF-a' }),
      tx('r2', { bank_reference: 'REF-Z', version: 3 }),
      tx('r3', { bank_reference: 'REF-é' }),
      // The plan's own transaction, inserted by a resumed journal: read, never a clash.
      tx('own', { bank_reference: 'REF-own' }),
      // Not clashes: another reference, none, a null one, a number that prints as a planned reference, another account's, another organisation's.
      tx('r4', { bank_reference: 'REF-A' }),
      tx('r5', {}),
      tx('r6', { bank_reference: null }),
      tx('r7', { bank_reference: 42 }),
      tx('r8', { bank_reference: 'REF-a', bank_account_id: `ba_${uid}_other` }),
      tx('r9', { bank_reference: 'REF-a' }, `org_${uid}_other`),
    ] as never[]);
    const references = ['REF-a', 'REF-Z', 'REF-é', 'REF-own', '42', 'REF-none'];
    const plan = {
      bank_account_id: account,
      new_transactions: [
        ...references.map((r, i) => ({
          id: r === 'REF-own' ? `bt_${uid}_own` : `bt_${uid}_new${i}`,
          bank_reference: r,
        })),
        { id: `bt_${uid}_new_null`, bank_reference: null },
      ],
    } as unknown as StatementImportPlan;
    const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    const viaFerret = await accountTransactionsByReference(db, orgId, account, references);
    const served = sqlStats(sql).served;
    const viaPostgres = await accountTransactionsByReference(sql, orgId, account, references);
    expect(sqlStats(sql).served - served, 'answered from PostgreSQL in one query').to.equal(1);
    expect(byId(viaPostgres)).to.deep.equal(byId(viaFerret));
    expect(byId(viaPostgres)).to.deep.equal([
      { id: `bt_${uid}_own`, version: 1, bank_reference: 'REF-own' },
      { id: `bt_${uid}_r1`, version: 1, bank_reference: 'REF-a' },
      { id: `bt_${uid}_r2`, version: 3, bank_reference: 'REF-Z' },
      { id: `bt_${uid}_r3`, version: 1, bank_reference: 'REF-é' },
    ]);
    const clashes = bankReferenceClashes(plan, viaPostgres);
    expect(clashes).to.deep.equal(bankReferenceClashes(plan, viaFerret));
    expect(clashes).to.deep.equal([
      { collection: 'bank_transactions', id: `bt_${uid}_r1`, expected_version: 0, actual_version: 1 },
      { collection: 'bank_transactions', id: `bt_${uid}_r2`, expected_version: 0, actual_version: 3 },
      { collection: 'bank_transactions', id: `bt_${uid}_r3`, expected_version: 0, actual_version: 1 },
    ]);
  });

  it("the event sequence marks: one SQL aggregate gives the highest and the settled reservation the FerretDB read gives, the organisation's only, and a reservation follows it", async () => {
    const org = `org_${uid}_seq`;
    const reservation = (o: string, n: number, at: string) => ({ _id: `${o}:${n}`, org_id: o, sequence: n, at });
    await db.collection('event_sequences').insertMany([
      reservation(org, 7, '2026-01-01T00:00:01.000Z'),
      reservation(org, 9, '2026-01-01T00:00:03.000Z'),
      reservation(org, 8, '2026-01-01T00:00:02.000Z'),
      // Another organisation's higher numbers count for it only.
      reservation(`${org}x`, 50, '2026-01-01T00:00:00.000Z'),
      reservation(`org_${uid}_se`, 60, '2026-01-01T00:00:00.000Z'),
    ] as never[]);
    for (const cutoff of ['2026-01-01T00:00:02.000Z', '2026-01-01T00:00:00.500Z', '']) {
      const served = sqlStats(sql).served;
      const viaPostgres = await latestSettledSequence(
        sql,
        org,
        new Date(Date.parse(cutoff || '2026-01-01T00:00:00.000Z') + EVENT_SETTLE_MS),
      );
      expect(sqlStats(sql).served - served, 'answered from PostgreSQL').to.equal(1);
      expect(viaPostgres).to.equal(
        await latestSettledSequence(
          db,
          org,
          new Date(Date.parse(cutoff || '2026-01-01T00:00:00.000Z') + EVENT_SETTLE_MS),
        ),
      );
    }
    expect(
      await latestSettledSequence(sql, org, new Date(Date.parse('2026-01-01T00:00:02.000Z') + EVENT_SETTLE_MS)),
    ).to.equal(8);
    expect(await latestSequence(sql, org)).to.equal(9);
    expect(await latestSequence(db, org)).to.equal(9);
    expect(await latestSequence(sql, `org_${uid}_none`)).to.equal(0);
    const next = await reserveEvent(sql, org);
    await next.retired;
    expect(next.sequence).to.equal(10);
    expect(await latestSequence(sql, org)).to.equal(10);
  });

  it('a reservation in one SQL statement is the document the driver would have stored, and racing writers each get their own number', async () => {
    const org = `org_${uid}_rsv`;
    const served = sqlStats(sql).served;
    const first = await reserveEvent(sql, org);
    expect(first.sequence).to.equal(1);
    expect(sqlStats(sql).served - served, 'reserved in SQL').to.equal(1);
    const stored = await db.collection('event_sequences').findOne({ _id: `${org}:1` } as never);
    expect(stored).to.deep.include({ _id: `${org}:1`, org_id: org, sequence: 1 });
    expect(Object.keys(stored!)).to.deep.equal(['_id', 'org_id', 'sequence', 'at']);
    expect(Date.parse(stored!.at as string)).to.be.closeTo(Date.now(), 60_000);
    // FerretDB reads the number back as an int, as the driver writes a small integer: a query by value finds it.
    expect(await db.collection('event_sequences').countDocuments({ org_id: org, sequence: { $type: 'int' } })).to.equal(
      1,
    );
    // Twenty writers at once: each its own number, no gap, none through FerretDB.
    const racing = await Promise.all(Array.from({ length: 20 }, () => reserveEvent(sql, org)));
    await Promise.all(racing.map((r) => r.retired));
    expect(racing.map((r) => r.sequence).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    expect(await latestSequence(sql, org)).to.equal(21);
    expect(await latestSequence(db, org)).to.equal(21);
  });

  it('a reservation past the int32 numbers is written through the store, as a number FerretDB types itself', async () => {
    const org = `org_${uid}_big`;
    await db.collection('event_sequences').insertOne({
      _id: `${org}:2147483647`,
      org_id: org,
      sequence: 2_147_483_647,
      at: '2026-01-01T00:00:00.000Z',
    } as never);
    const next = await reserveEvent(sql, org);
    expect(next.sequence).to.equal(2_147_483_648);
    const stored = await db.collection('event_sequences').findOne({ _id: `${org}:2147483648` } as never);
    expect(stored?.sequence).to.equal(2_147_483_648);
    expect(await latestSequence(sql, org)).to.equal(2_147_483_648);
  });

  it("a reversal's reads by id (the org, an entry, transactions): one SQL query each gives what FerretDB gives, the organisation's only, the rich types included", async () => {
    const orgDoc = {
      _id: `org_${uid}_byid`,
      name: 'By id',
      base_currency: 'EUR',
      settlement_accounts: ['1200'],
      require_distinct_approver: true,
    };
    await db.collection('orgs').insertOne(orgDoc as never);
    const served = sqlStats(sql).served;
    expect(await findOrg(sql, orgDoc._id)).to.deep.equal(await findOrg(db, orgDoc._id));
    expect(await findOrg(sql, orgDoc._id)).to.include({ id: orgDoc._id, name: 'By id' });
    expect(await findOrg(sql, `org_${uid}_missing`)).to.equal(null);
    const entry = `le_${uid}_a1`;
    expect(await findEntry(sql, orgId, entry)).to.deep.equal(await findEntry(db, orgId, entry));
    expect((await findEntry(sql, orgId, entry))?.id).to.equal(entry);
    // Another organisation's entry is not found, through either path.
    expect(await findEntry(sql, `org_${uid}_other`, entry)).to.equal(null);
    expect(await findEntry(db, `org_${uid}_other`, entry)).to.equal(null);
    // The first three transactions carry a double, a date, an ObjectId and a Long (read by _id through FerretDB: exact either way).
    const ids = [
      `bt_${uid}_a10`,
      `bt_${uid}_a11`,
      `bt_${uid}_Z10`,
      `bt_${uid}_Z11`,
      `bt_${uid}_xa10`,
      `bt_${uid}_none`,
    ];
    const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    const viaSql = byId(await findTransactionsByIds(sql, orgId, ids));
    expect(viaSql).to.deep.equal(byId(await findTransactionsByIds(db, orgId, ids)));
    expect(viaSql.map((t) => t.id)).to.deep.equal([`bt_${uid}_Z10`, `bt_${uid}_Z11`, `bt_${uid}_a10`, `bt_${uid}_a11`]);
    expect(
      sqlStats(sql).served - served,
      'each read with the pool answered from PostgreSQL, a missing org too',
    ).to.equal(7);
  });

  it("a read by _id (an account, a transaction, the inbox version with a projection): SQL gives what the driver gives, another organisation's document is not found", async () => {
    const account = {
      _id: `ba_${uid}_byid`,
      org_id: orgId,
      name: 'Main',
      currency: 'EUR',
      opening_balance_minor: 12_345,
      iban: null,
      version: 1,
    };
    await db.collection('bank_accounts').insertOne(account as never);
    await db.collection('inbox_versions').insertOne({
      _id: `org_${uid}_byid_inbox`,
      org_id: `org_${uid}_byid_inbox`,
      version: 'v_1',
      changed_at: '2026-01-01T00:00:00.000Z',
    } as never);
    const served = sqlStats(sql).served;
    expect(await findAccount(sql, orgId, account._id)).to.deep.equal(await findAccount(db, orgId, account._id));
    expect((await findAccount(sql, orgId, account._id))?.opening_balance_minor).to.equal(12_345);
    expect(await findAccount(sql, `org_${uid}_other`, account._id)).to.equal(null);
    const tx = `bt_${uid}_a10`;
    expect(await findTransaction(sql, orgId, tx)).to.deep.equal(await findTransaction(db, orgId, tx));
    expect(await findTransaction(sql, `org_${uid}_other`, tx)).to.equal(null);
    const byId = async (on: Db) =>
      (await storeAdapter(on)).findById('inbox_versions', `org_${uid}_byid_inbox`, { version: 1 });
    expect(await byId(sql)).to.deep.equal(await byId(db));
    expect(await byId(sql)).to.deep.equal({
      _id: `org_${uid}_byid_inbox`,
      version: 'v_1',
    });
    expect(await currentInboxVersion(sql, `org_${uid}_byid_inbox`)).to.equal('v_1');
    expect(await currentInboxVersion(sql, `org_${uid}_no_inbox`)).to.equal(INITIAL_INBOX_VERSION);
    expect(sqlStats(sql).served - served, 'every read with the pool answered from PostgreSQL').to.equal(9);
  });

  it("the inbox a duplicate grouping reads: the SQL read gives what the driver's nested projection gives, sub-fields it does not name left out, archived documents and other organisations' not read", async () => {
    const org = `org_${uid}_inbox`;
    const doc = (id: string, fields: Record<string, unknown>, o = org) => ({
      _id: `doc_${uid}_g${id}`,
      org_id: o,
      received_at: `2026-03-0${id.length}T08:00:00.000Z`,
      source: 'upload',
      status: 'open',
      version: 1,
      ...fields,
    });
    await db.collection('inbox_documents').insertMany([
      doc('1', {
        file: { sha256: 'a'.repeat(64), name: 'a.pdf', size: 10, mime: 'application/pdf', pages: 3 },
        extracted: { vendor_name: 'ACME', total_minor: 1250, currency: 'EUR', raw_text: 'not read' },
      }),
      doc('22', {
        status: 'booked',
        file: { sha256: 'b'.repeat(64), name: 'b.pdf', size: 11, mime: 'application/pdf' },
        extracted: { invoice_number: 'INV-1', invoice_date: '2026-02-01', vendor_tax_id: 'DE1' },
      }),
      doc('333', { file: { sha256: 'c'.repeat(64), name: 'c.pdf', size: 12, mime: 'application/pdf' } }),
      doc('4444', {
        file: { sha256: 'd'.repeat(64), name: 'd.pdf', size: 13, mime: 'application/pdf' },
        extracted: {},
      }),
      doc('55555', {
        status: 'archived',
        file: { sha256: 'e'.repeat(64), name: 'e.pdf', size: 14, mime: 'application/pdf' },
      }),
      doc('6', { file: { sha256: 'f'.repeat(64), name: 'f.pdf', size: 15, mime: 'application/pdf' } }, `${org}_other`),
    ] as never[]);
    const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    const served = sqlStats(sql).served;
    const viaSql = byId(await findGroupableInboxDocuments(sql, org));
    expect(sqlStats(sql).served - served, 'both statuses answered from PostgreSQL').to.equal(2);
    expect(viaSql).to.deep.equal(byId(await findGroupableInboxDocuments(db, org)));
    expect(viaSql.map((d) => d.id)).to.deep.equal([
      `doc_${uid}_g1`,
      `doc_${uid}_g22`,
      `doc_${uid}_g333`,
      `doc_${uid}_g4444`,
    ]);
    expect(viaSql[0]).to.deep.equal({
      id: `doc_${uid}_g1`,
      received_at: '2026-03-01T08:00:00.000Z',
      status: 'open',
      file: { sha256: 'a'.repeat(64), name: 'a.pdf', size: 10, mime: 'application/pdf' },
      extracted: { vendor_name: 'ACME', total_minor: 1250, currency: 'EUR' },
    });
  });

  it("an import's check that no id is another organisation's: more than a chunk of ids in SQL gives the ids the FerretDB read gives", async () => {
    const existing = SUFFIXES.flatMap((x) => [0, 1].flatMap((j) => [`bt_${uid}_${x}${j}`, `bt_${uid}_x${x}${j}`]));
    const fresh = Array.from({ length: 1500 - existing.length }, (_, i) => `bt_${uid}_fresh_${i}`);
    const ids = [...fresh.slice(0, 700), ...existing, ...fresh.slice(700)];
    const served = sqlStats(sql).served;
    const viaSql = (await findTakenIds(sql, 'bank_transactions', ids)).sort();
    expect(sqlStats(sql).served - served, 'two chunks, both answered from PostgreSQL').to.equal(2);
    expect(viaSql).to.deep.equal((await findTakenIds(db, 'bank_transactions', ids)).sort());
    expect(viaSql).to.deep.equal([...existing].sort());
  });
});
