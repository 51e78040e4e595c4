// The trial balance read (docs/reference/book-reads.md "Trial balance",
// docs/design/ledger-postings.md) on the real stack: entries and the derived
// bank side per account and currency, up to a day, named from the chart;
// organisation, scope and query errors.
import { expect } from 'chai';
import { OPENING_BALANCE_ACCOUNT, SUSPENSE_ACCOUNT } from '../../shared/domain/ledger-postings.js';
import type { TrialBalance } from '../../shared/domain/trial-balance.js';
import { trialBalanceSchema } from '../../shared/schemas/books-read.js';
import { ajv } from '../../shared/schemas/validator.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve } from '../helpers/staged.js';

const PATH = '/api/v1/cli/ledger/trial-balance';

describe('trial balance read', function () {
  this.timeout(60_000);
  let token: string;
  let otherToken: string;
  let noScopeToken: string;
  let orgId: string;
  let eurAccount: string;
  let bill: string;
  let billPayment: string;

  before(async () => {
    const s = await stack();
    // Opening 100.00 on 1200; a sale of 120.00 paid 90.00 on 2026-02-10 (30.00 left on suspense);
    // a bill of 40.00 paid on 2026-02-20, unlinked; a USD account with one receipt of 5.00.
    const books = new Books();
    const eur = books.account({ opening_balance_minor: 10_000 });
    const usd = books.account({ currency: 'USD', ledger_account: '1210' });
    const sale = books.invoice(12_000, { entry_date: '2026-02-01' });
    bill = books.invoice(-4_000, { entry_date: '2026-02-05' });
    books.link(books.txn(eur, 12_000, { booking_date: '2026-02-10' }), sale, 9_000);
    billPayment = books.txn(eur, -4_000, { booking_date: '2026-02-20' });
    eurAccount = eur;
    orgId = books.orgId;
    books.txn(usd, 500, { booking_date: '2026-02-15', currency: 'USD' });
    books.file.accounts = [
      { code: '1200', name: 'Bank EUR', type: 'asset', active: true },
      { code: '1210', name: 'Bank USD', type: 'asset', active: true },
      { code: '1400', name: 'Trade receivables', type: 'asset', active: true },
      { code: '1600', name: 'Trade payables', type: 'liability', active: true },
      { code: '4000', name: 'Purchases', type: 'expense', active: true },
      { code: '8400', name: 'Revenue', type: 'income', active: true },
    ];
    await s.load(books.file);
    token = await s.token(books.orgId, ['books:read']);
    noScopeToken = await s.token(books.orgId, ['staged:read']);
    const other = new Books();
    other.invoice(777);
    await s.load(other.file);
    otherToken = await s.token(other.orgId, ['books:read']);
  });

  const get = (query: string, t = token): Promise<Answer<TrialBalance>> =>
    call<TrialBalance>('GET', `${PATH}${query}`, { token: t });

  it('sums the entries and the bank side per account and currency up to the day, named from the chart', async () => {
    const res = await get('?as_of=2026-02-15');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(ajv.validate(trialBalanceSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    const row = (
      account: string,
      name: string | null,
      type: string | null,
      currency: string,
      d: number,
      c: number,
    ) => ({
      account,
      name,
      type,
      currency,
      debit_minor: d,
      credit_minor: c,
      balance_minor: d - c,
    });
    expect(res.body.data).to.deep.equal({
      as_of: '2026-02-15',
      items: [
        row('1200', 'Bank EUR', 'asset', 'EUR', 22_000, 0),
        row('1210', 'Bank USD', 'asset', 'USD', 500, 0),
        row('1400', 'Trade receivables', 'asset', 'EUR', 12_000, 9_000),
        row('1600', 'Trade payables', 'liability', 'EUR', 0, 4_000),
        row('4000', 'Purchases', 'expense', 'EUR', 4_000, 0),
        row('8400', 'Revenue', 'income', 'EUR', 0, 12_000),
        row(OPENING_BALANCE_ACCOUNT, 'Opening balances', 'equity', 'EUR', 0, 10_000),
        row(SUSPENSE_ACCOUNT, 'Suspense', 'asset', 'EUR', 0, 3_000),
        row(SUSPENSE_ACCOUNT, 'Suspense', 'asset', 'USD', 0, 500),
      ],
    });
  });

  it('takes today (UTC) when no day is named: every record counts', async () => {
    const res = await get('');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.as_of).to.equal(new Date().toISOString().slice(0, 10));
    const bank = res.body.data.items.find((r) => r.account === '1200');
    expect(bank?.balance_minor).to.equal(22_000 - 4_000);
    const suspense = res.body.data.items.find((r) => r.account === SUSPENSE_ACCOUNT && r.currency === 'EUR');
    expect(suspense).to.include({ debit_minor: 4_000, credit_minor: 3_000, balance_minor: 1_000 });
  });

  it("answers only the token's organisation", async () => {
    const res = await get('', otherToken);
    expect(res.status).to.equal(200);
    expect(res.body.data.items.map((r) => [r.account, r.balance_minor])).to.deep.equal([
      ['1400', 777],
      ['8400', -777],
    ]);
  });

  it("a link made later changes a past day's balances: the payment moves from suspense to the bill's payable", async () => {
    const before = await get('?as_of=2026-02-20');
    expect(before.status).to.equal(200);
    const dayBefore = (await get('?as_of=2026-02-19')).body.data;
    const balances = (items: TrialBalance['items']) =>
      Object.fromEntries(items.map((r) => [`${r.account} ${r.currency}`, [r.debit_minor, r.credit_minor]]));
    expect(balances(before.body.data.items)).to.deep.include({
      '1600 EUR': [0, 4_000],
      [`${SUSPENSE_ACCOUNT} EUR`]: [4_000, 3_000],
    });
    const who = await actors(orgId);
    const staged = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: eurAccount,
        matches: [{ bank_transaction_id: billPayment, ledger_entry_id: bill, amount_minor: 4_000 }],
      },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    expect((await approve(who.bob, staged.body.data.staged_operation_id)).status).to.equal(200);
    expect((await apply(who.bob, staged.body.data.staged_operation_id)).status).to.equal(200);

    const after = await get('?as_of=2026-02-20');
    expect(balances(after.body.data.items)).to.deep.include({
      '1600 EUR': [4_000, 4_000],
      [`${SUSPENSE_ACCOUNT} EUR`]: [0, 3_000],
    });
    // A day before the payment keeps its balances.
    expect((await get('?as_of=2026-02-19')).body.data).to.deep.equal(dayBefore);
  });

  it('refuses a day that is not a calendar date, an unknown parameter, and a token without books:read', async () => {
    for (const query of ['?as_of=2026-02-30', '?as_of=yesterday', '?as_of=2026-02-15&limit=3']) {
      const res = await get(query);
      expect(res.status, query).to.equal(400);
      expect(res.body.error?.code, query).to.equal('validation_failed');
    }
    const forbidden = await get('', noScopeToken);
    expect(forbidden.status).to.equal(403);
  });
});
