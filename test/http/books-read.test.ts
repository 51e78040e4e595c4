// The book reads (docs/reference/book-reads.md) on the real stack: every filter and its
// order, keyset paging, the computed figures against hand-computed books, and
// who may read what.
import { expect } from 'chai';
import {
  bankAccountSchema,
  counterpartyListSchema,
  documentPageSchema,
  entryPageSchema,
  ledgerEntrySchema,
  transactionPageSchema,
} from '../../shared/schemas/books-read.js';
import { ajv } from '../../shared/schemas/validator.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

interface Page {
  items: Array<Record<string, unknown> & { id: string }>;
  next_cursor: string | null;
}

const qs = (query: Record<string, string | number>): string => {
  const s = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return s ? `?${s}` : '';
};

/**
 * Account A (opening 10 000) with t1 +5000 fully linked to e1, t2 +3000 linked
 * 1000 of e2 (3000), t3 −2000 unlinked (counterparty b), t4 +1000 reconciled
 * and linked 1500 to e3 (1500, b); account B with t5 +700 unlinked. e4 is b's
 * payable of 4000, unlinked. e5 (a's invoice of 2500) is reversed by e6, its
 * lines swapped: neither is open. Three inbox documents.
 */
function fixture() {
  const books = new Books();
  const a = books.account({ opening_balance_minor: 10_000, iban: 'DE89370400440532013000' });
  const b = books.account({ name: 'Savings' });
  const cpA = books.cp('a');
  const cpB = books.cp('b');
  const id = (n: number) => `bt_${books.uid}_${n}`;
  const e1 = books.invoice(5000, { id: `le_${books.uid}_1`, entry_date: '2026-01-10', counterparty_id: cpA });
  const e2 = books.invoice(3000, { id: `le_${books.uid}_2`, entry_date: '2026-01-12', counterparty_id: cpA });
  const e3 = books.invoice(1500, { id: `le_${books.uid}_3`, entry_date: '2026-01-15', counterparty_id: cpB });
  const e4 = books.invoice(-4000, { id: `le_${books.uid}_4`, entry_date: '2026-01-20', counterparty_id: cpB });
  const e5 = `le_${books.uid}_5`;
  const e6 = `le_${books.uid}_6`;
  books.invoice(2500, { id: e5, entry_date: '2026-01-25', status: 'reversed', reversed_by: e6 });
  books.invoice(2500, {
    id: e6,
    entry_date: '2026-01-26',
    reversal_of: e5,
    lines: [
      { account: '1400', debit_minor: 0, credit_minor: 2500 },
      { account: '8400', debit_minor: 2500, credit_minor: 0 },
    ],
  });
  const t1 = books.txn(a, 5000, {
    id: id(1),
    booking_date: '2026-02-01',
    counterparty_id: cpA,
    counterparty_name: 'A old name',
  });
  const t2 = books.txn(a, 3000, {
    id: id(2),
    booking_date: '2026-02-03',
    counterparty_id: cpA,
    counterparty_name: 'A new name',
  });
  const t3 = books.txn(a, -2000, {
    id: id(3),
    booking_date: '2026-02-03',
    counterparty_id: cpB,
    counterparty_name: 'B',
  });
  const t4 = books.txn(a, 1000, {
    id: id(4),
    booking_date: '2026-02-05',
    counterparty_id: cpB,
    counterparty_name: 'B',
    status: 'reconciled',
  });
  const t5 = books.txn(b, 700, { id: id(5), booking_date: '2026-02-02', counterparty_id: cpA });
  const l1 = books.link(t1, e1, 5000);
  const l2 = books.link(t2, e2, 1000);
  const l4 = books.link(t4, e3, 1500);
  const d1 = books.doc({ received_at: '2026-03-01T08:00:00.000Z' });
  const d2 = books.doc({ received_at: '2026-03-02T08:00:00.000Z', status: 'booked' });
  const d3 = books.doc({ received_at: '2026-03-03T08:00:00.000Z' });
  return { books, a, b, cpA, cpB, e1, e2, e3, e4, e5, e6, t1, t2, t3, t4, t5, l1, l2, l4, d1, d2, d3 };
}

describe('book reads', function () {
  this.timeout(60_000);
  let f: ReturnType<typeof fixture>;
  let token: string;

  before(async () => {
    const s = await stack();
    f = fixture();
    await s.load(f.books.file);
    token = await s.token(f.books.orgId, ['books:read']);
  });

  const get = <D = Page>(path: string, t = token) => call<D>('GET', path, { token: t });
  async function ids(path: string, query: Record<string, string | number>): Promise<string[]> {
    const res = await get(`${path}${qs(query)}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data.items.map((i) => i.id);
  }
  /** Every page with limit=1 until next_cursor is null: each id in page order. */
  async function walk(path: string, query: Record<string, string | number>): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Answer<Page> = await get<Page>(
        `${path}${qs(cursor === null ? { ...query, limit: 1 } : { ...query, limit: 1, cursor })}`,
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      out.push(...res.body.data.items.map((i) => i.id));
      cursor = res.body.data.next_cursor;
      expect(out.length, 'too many pages').to.be.below(20);
    } while (cursor !== null);
    return out;
  }

  it('bank accounts carry their stored fields, book balance (opening + Σ transactions) and unreconciled count and sum', async () => {
    const res = await get<{ items: Array<Record<string, unknown>> }>('/api/v1/cli/bank-accounts');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const a = res.body.data.items.find((i) => i.id === f.a)!;
    expect(ajv.validate(bankAccountSchema, a), JSON.stringify(ajv.errors)).to.equal(true);
    expect(a).to.include({
      name: 'Main account',
      iban: 'DE89370400440532013000',
      currency: 'EUR',
      ledger_account: '1200',
      opening_balance_minor: 10_000,
      book_balance_minor: 17_000,
    });
    expect(a.unreconciled).to.deep.equal({ count: 3, sum_minor: 6000 });
    const one = await get<Record<string, unknown>>(`/api/v1/cli/bank-accounts/${f.b}`);
    expect(one.body.data).to.include({ id: f.b, name: 'Savings', book_balance_minor: 700 });
    expect(one.body.data.unreconciled).to.deep.equal({ count: 1, sum_minor: 700 });
  });

  it('transactions are ordered by (booking_date, id) and each filter keeps exactly its own', async () => {
    const path = '/api/v1/cli/bank-transactions';
    expect(await ids(path, {})).to.deep.equal([f.t1, f.t5, f.t2, f.t3, f.t4]);
    expect(await ids(path, { bank_account_id: f.a })).to.deep.equal([f.t1, f.t2, f.t3, f.t4]);
    expect(await ids(path, { bank_account_id: f.a, status: 'unreconciled' })).to.deep.equal([f.t1, f.t2, f.t3]);
    expect(await ids(path, { status: 'reconciled' })).to.deep.equal([f.t4]);
    expect(await ids(path, { from: '2026-02-02', to: '2026-02-03' })).to.deep.equal([f.t5, f.t2, f.t3]);
    expect(await ids(path, { counterparty_id: f.cpB })).to.deep.equal([f.t3, f.t4]);
    expect(await ids(path, { link_state: 'unlinked' })).to.deep.equal([f.t5, f.t3]);
    expect(await ids(path, { link_state: 'partial' })).to.deep.equal([f.t2]);
    expect(await ids(path, { link_state: 'full' })).to.deep.equal([f.t1]);
    expect(await ids(path, { link_state: 'over' })).to.deep.equal([f.t4]);
  });

  it('a transaction carries its links, Σ links and the reconciliation remainder |amount| − Σ links', async () => {
    const res = await get(`/api/v1/cli/bank-transactions${qs({ bank_account_id: f.a })}`);
    expect(ajv.validate(transactionPageSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    const figures = res.body.data.items.map((t) => [t.id, t.linked_minor, t.remainder_minor, t.link_state]);
    expect(figures).to.deep.equal([
      [f.t1, 5000, 0, 'full'],
      [f.t2, 1000, 2000, 'partial'],
      [f.t3, 0, 2000, 'unlinked'],
      [f.t4, 1500, -500, 'over'],
    ]);
    const one = await get<Record<string, unknown>>(`/api/v1/cli/bank-transactions/${f.t2}`);
    expect(one.body.data.links).to.deep.equal([{ link_id: f.l2, ledger_entry_id: f.e2, amount_minor: 1000 }]);
    expect(one.body.data).to.include({ amount_minor: 3000, counterparty_name: 'A new name', remainder_minor: 2000 });
  });

  it('paging with limit=1 walks every item once, with and without a computed filter', async () => {
    expect(await walk('/api/v1/cli/bank-transactions', {})).to.deep.equal([f.t1, f.t5, f.t2, f.t3, f.t4]);
    expect(await walk('/api/v1/cli/bank-transactions', { link_state: 'unlinked' })).to.deep.equal([f.t5, f.t3]);
    expect(await walk('/api/v1/cli/ledger/entries', {})).to.deep.equal([f.e1, f.e2, f.e3, f.e4, f.e5, f.e6]);
    expect(await walk('/api/v1/cli/ledger/entries', { open: 'true' })).to.deep.equal([f.e2, f.e4]);
    expect(await walk('/api/v1/cli/bookkeeping/inbox/documents', {})).to.deep.equal([f.d3, f.d2, f.d1]);
  });

  it('entries are ordered by (entry_date, id), filtered, with open amount on the settlement accounts and Σ links', async () => {
    const path = '/api/v1/cli/ledger/entries';
    const res = await get(path);
    expect(ajv.validate(entryPageSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    expect(res.body.data.items.map((e) => [e.id, e.open_amount_minor, e.linked_minor, e.open])).to.deep.equal([
      [f.e1, 5000, 5000, false],
      [f.e2, 3000, 1000, true],
      [f.e3, 1500, 1500, false],
      [f.e4, -4000, 0, true],
      // A reversed entry and its reversal leave their amounts on the settlement accounts, and settle each other.
      [f.e5, 2500, 0, false],
      [f.e6, -2500, 0, false],
    ]);
    expect(await ids(path, { counterparty_id: f.cpB })).to.deep.equal([f.e3, f.e4]);
    expect(await ids(path, { open: 'true' })).to.deep.equal([f.e2, f.e4]);
    expect(await ids(path, { open: 'false' })).to.deep.equal([f.e1, f.e3, f.e5, f.e6]);
    expect(await ids(path, { status: 'posted' })).to.deep.equal([f.e1, f.e2, f.e3, f.e4, f.e6]);
    expect(await ids(path, { status: 'reversed' })).to.deep.equal([f.e5]);
    expect(await ids(path, { reference: `REF-${f.e2}` })).to.deep.equal([f.e2]);
    expect(await ids(path, { from: '2026-01-12', to: '2026-01-15' })).to.deep.equal([f.e2, f.e3]);
    const one = await get<Record<string, unknown>>(`${path}/${f.e3}`);
    expect(ajv.validate(ledgerEntrySchema, one.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    expect(one.body.data).to.include({ reversal_of: null, reversed_by: null, open_amount_minor: 1500 });
    expect(one.body.data.links).to.deep.equal([
      { link_id: f.l4, ledger_entry_id: f.e3, bank_transaction_id: f.t4, amount_minor: 1500 },
    ]);
  });

  it('counterparties of an account: latest bank name, open receivable/payable beyond links, unlinked bank amount', async () => {
    const res = await get<{ items: unknown[] }>(`/api/v1/cli/counterparties${qs({ bank_account_id: f.a })}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(ajv.validate(counterpartyListSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    expect(res.body.data.items).to.deep.equal([
      {
        counterparty_id: f.cpA,
        name: 'A new name',
        open_receivable_minor: 2000,
        open_payable_minor: 0,
        unlinked_bank_minor: 2000,
        currency: 'EUR',
      },
      {
        counterparty_id: f.cpB,
        name: 'B',
        open_receivable_minor: 0,
        open_payable_minor: 4000,
        unlinked_bank_minor: 2000,
        currency: 'EUR',
      },
    ]);
  });

  it('inbox documents come newest first, filtered by status, each with every stored field', async () => {
    const res = await get('/api/v1/cli/bookkeeping/inbox/documents');
    expect(ajv.validate(documentPageSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    expect(res.body.data.items.map((d) => d.id)).to.deep.equal([f.d3, f.d2, f.d1]);
    expect(await ids('/api/v1/cli/bookkeeping/inbox/documents', { status: 'open' })).to.deep.equal([f.d3, f.d1]);
    const one = await get<Record<string, unknown>>(`/api/v1/cli/bookkeeping/inbox/documents/${f.d2}`);
    expect(one.body.data).to.deep.equal({ ...f.books.file.inbox_documents.find((d) => d.id === f.d2), version: 1 });
  });

  it("another organisation's ids answer 404, and its lists show none of them", async () => {
    const s = await stack();
    const other = new Books();
    other.account();
    await s.load(other.file);
    const otherToken = await s.token(other.orgId, ['books:read']);
    for (const path of [
      `/api/v1/cli/bank-accounts/${f.a}`,
      `/api/v1/cli/bank-transactions/${f.t1}`,
      `/api/v1/cli/ledger/entries/${f.e1}`,
      `/api/v1/cli/bookkeeping/inbox/documents/${f.d1}`,
      `/api/v1/cli/counterparties?bank_account_id=${f.a}`,
    ]) {
      const res = await get(path, otherToken);
      expect(res.status, path).to.equal(404);
      expect(res.body.error.code, path).to.equal('not_found');
    }
    expect(
      await (async () => (await get('/api/v1/cli/bank-transactions', otherToken)).body.data.items)(),
    ).to.deep.equal([]);
  });

  it('a token without books:read is refused with 403', async () => {
    const s = await stack();
    const weak = await s.token(f.books.orgId, ['inbox:read', 'staged:read']);
    const res = await get('/api/v1/cli/bank-transactions', weak);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('forbidden');
  });

  it('unknown query parameters are refused (400 validation_failed); a tampered or re-filtered cursor is 400 invalid_cursor', async () => {
    expect((await get('/api/v1/cli/bank-transactions?colour=red')).body.error.code).to.equal('validation_failed');
    expect((await get('/api/v1/cli/bank-accounts?limit=1')).body.error.code).to.equal('validation_failed');
    const first = await get(`/api/v1/cli/bank-transactions${qs({ limit: 1 })}`);
    const cursor = first.body.data.next_cursor!;
    const refiltered = await get(`/api/v1/cli/bank-transactions${qs({ limit: 1, cursor, status: 'reconciled' })}`);
    expect([refiltered.status, refiltered.body.error.code]).to.deep.equal([400, 'invalid_cursor']);
    const tampered = await get(`/api/v1/cli/bank-transactions${qs({ limit: 1, cursor: `${cursor.slice(0, -2)}AA` })}`);
    expect([tampered.status, tampered.body.error.code]).to.deep.equal([400, 'invalid_cursor']);
    const foreignList = await get(`/api/v1/cli/ledger/entries${qs({ limit: 1, cursor })}`);
    expect(foreignList.body.error.code).to.equal('invalid_cursor');
  });
});
