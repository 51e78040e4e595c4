// The chart of accounts read (docs/reference/book-reads.md): GET /api/v1/cli/ledger/accounts on the
// real stack: byte order of codes, inactive accounts shown, keyset paging, scope and organisation.
import { expect } from 'chai';
import type { LedgerAccount } from '../../shared/domain/books.js';
import { ledgerAccountPageSchema } from '../../shared/schemas/books-read.js';
import { ajv } from '../../shared/schemas/validator.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

interface Page {
  items: LedgerAccount[];
  next_cursor: string | null;
}
const PATH = '/api/v1/cli/ledger/accounts';

describe('ledger accounts read', function () {
  this.timeout(60_000);
  let token: string;
  let otherToken: string;
  let noChartToken: string;
  const chart: LedgerAccount[] = [
    { code: 'b-9', name: 'Lower b', type: 'equity', active: true },
    { code: '8400', name: 'Revenue', type: 'income', active: true },
    { code: '1600', name: 'Trade payables', type: 'liability', active: true },
    { code: '1200', name: 'Bank', type: 'asset', active: true },
    { code: '4980', name: 'Office supplies (closed)', type: 'expense', active: false },
    { code: 'B-1', name: 'Upper B', type: 'equity', active: true },
    { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
  ];
  // Byte order: digits, then upper case, then lower case.
  const ordered = ['1200', '1400', '1600', '4980', '8400', 'B-1', 'b-9'];

  before(async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    books.link(books.txn(account, 100), books.invoice(100), 100);
    books.file.accounts = chart;
    await s.load(books.file);
    token = await s.token(books.orgId, ['books:read']);
    // Another organisation with a chart of its own, and one without a chart.
    const other = new Books();
    other.invoice(100);
    other.file.accounts = [
      { code: '1400', name: 'Other receivables', type: 'asset', active: true },
      { code: '1600', name: 'Other payables', type: 'liability', active: true },
      { code: '8400', name: 'Other revenue', type: 'income', active: true },
      { code: '0001', name: 'Only the other org has this', type: 'asset', active: true },
    ];
    await s.load(other.file);
    otherToken = await s.token(other.orgId, ['books:read']);
    const bare = new Books();
    bare.invoice(100);
    await s.load(bare.file);
    noChartToken = await s.token(bare.orgId, ['books:read']);
  });

  const get = (path: string, t = token): Promise<Answer<Page>> => call<Page>('GET', path, { token: t });

  it('lists every account by code in byte order, inactive ones with active: false, within the schema', async () => {
    const res = await get(PATH);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.items).to.deep.equal(ordered.map((code) => chart.find((a) => a.code === code)));
    expect(res.body.data.next_cursor).to.equal(null);
    expect(ajv.validate(ledgerAccountPageSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
  });

  it('pages by keyset: limit=2 walks every account once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query = new URLSearchParams({ limit: '2', ...(cursor ? { cursor } : {}) });
      const res: Answer<Page> = await get(`${PATH}?${query.toString()}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.items.length).to.be.at.most(2);
      seen.push(...res.body.data.items.map((a) => a.code));
      cursor = res.body.data.next_cursor;
      pages += 1;
      expect(pages, 'too many pages').to.be.below(10);
    } while (cursor !== null);
    expect(seen).to.deep.equal(ordered);
    expect(pages).to.equal(4);
  });

  it("another organisation's chart is not visible, and its cursor is refused", async () => {
    const other = await get(PATH, otherToken);
    expect(other.body.data.items.map((a) => a.code)).to.deep.equal(['0001', '1400', '1600', '8400']);
    expect(other.body.data.items[1]).to.deep.equal({
      code: '1400',
      name: 'Other receivables',
      type: 'asset',
      active: true,
    });
    const first = await get(`${PATH}?limit=1`, otherToken);
    const foreign = await get(`${PATH}?limit=1&cursor=${first.body.data.next_cursor!}`);
    expect([foreign.status, foreign.body.error.code]).to.deep.equal([400, 'invalid_cursor']);
  });

  it('an organisation without a chart gets an empty list', async () => {
    const res = await get(PATH, noChartToken);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ items: [], next_cursor: null });
  });

  it('a token without books:read is refused with 403; an unknown parameter with 400', async () => {
    const s = await stack();
    const books = new Books();
    books.invoice(100);
    await s.load(books.file);
    const weak = await s.token(books.orgId, ['inbox:read', 'staged:read', 'ledger:stage']);
    const res = await call<unknown>('GET', PATH, { token: weak });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('forbidden');
    const bad = await call<unknown>('GET', `${PATH}?type=asset`, { token });
    expect([bad.status, bad.body.error.code]).to.deep.equal([400, 'validation_failed']);
  });
});
