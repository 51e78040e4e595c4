// docs/reference/http-api.md "Amount of each kind" on the real stack: every
// staged operation's view carries `amount_minor` and `currency`, defined by its
// kind, in the staging answer, show, each list item and the lifecycle answers.
// The organisation's base currency is CHF and its accounts are in EUR, so an
// answer in the wrong one of the two shows.
import { expect } from 'chai';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { duplicatePair } from '../helpers/inbox.js';
import { stack } from '../helpers/stack.js';
import { approve, show } from '../helpers/staged.js';

const STAGED = '/api/v1/cli/staged-operations';

interface Staged {
  staged_operation_id: string;
  amount_minor: number;
  currency: string;
}

/** An org whose base currency (CHF) differs from its accounts' (EUR). */
const chfBooks = (): Books => new Books({ base_currency: 'CHF' });

async function tokens(books: Books, scopes: TokenScope[]): Promise<{ alice: string; bob: string }> {
  const s = await stack();
  await s.load(books.file);
  return {
    alice: await s.token(books.orgId, [...scopes, 'staged:read'], 'alice'),
    bob: await s.token(books.orgId, ['staged:read', 'staged:approve'], 'bob'),
  };
}

/** The staging answer, show, the list item and approve's answer all carry the same amount. */
async function expectAmount(
  who: { alice: string; bob: string },
  res: { status: number; body: unknown },
  amount: { amount_minor: number; currency: string },
): Promise<void> {
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const data = (res.body as { data: Staged }).data;
  expect({ amount_minor: data.amount_minor, currency: data.currency }).to.deep.equal(amount);
  const id = data.staged_operation_id;
  const shown = await show(who.bob, id);
  expect(shown.status).to.equal(200);
  expect(shown.body.data).to.include(amount);
  const list = await call<{ items: Array<Record<string, unknown>> }>('GET', STAGED, { token: who.bob });
  expect(list.body.data.items.find((i) => i.staged_operation_id === id)).to.include(amount);
  const approved = await approve(who.bob, id);
  expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
  expect(approved.body.data).to.include({ status: 'approved', ...amount });
}

describe('amount_minor and currency of each kind', () => {
  it('a reconciliation: Σ|amount| of its transactions, in the statement currency', async () => {
    const books = chfBooks();
    const account = books.account();
    const inflow = books.linkedTxn(account, 7_000, { booking_date: '2026-02-02' });
    const outflow = books.linkedTxn(account, -2_000, { booking_date: '2026-02-02' });
    const who = await tokens(books, ['bank:stage']);
    const res = await call('POST', '/api/v1/cli/bank-matches/reconcile/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        statement: { end_date: '2026-02-02', closing_balance_minor: 5_000, currency: 'EUR' },
        transaction_ids: [inflow.txn, outflow.txn],
      },
    });
    await expectAmount(who, res, { amount_minor: 9_000, currency: 'EUR' });
  });

  it("a link repair: Σ of its moved, new and released links, in the account's currency", async () => {
    const books = chfBooks();
    const account = books.account();
    const e1 = books.invoice(6_000, { entry_date: '2026-01-05' });
    const e2 = books.invoice(4_000, { entry_date: '2026-01-20' });
    const t1 = books.txn(account, 6_000, { booking_date: '2026-02-03' });
    books.link(t1, e2, 4_000);
    books.link(t1, e1, 2_000);
    // Not linked yet: the repair links it to e2 (4,000 open once the move leaves it).
    books.txn(account, 1_500, { booking_date: '2026-02-04' });
    const who = await tokens(books, ['bank:stage']);
    const body = { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' };
    // A dry run answers the amount the staging will have.
    const dry = await call<Staged>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage?dry_run=true', {
      token: who.alice,
      body,
    });
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data).to.include({ amount_minor: 5_500, currency: 'EUR' });
    const res = await call('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', { token: who.alice, body });
    // The move of 4,000 from e2 to e1, and the new link of 1,500 to e2.
    await expectAmount(who, res, { amount_minor: 5_500, currency: 'EUR' });
  });

  it("a reversal: the reversed entry's debits", async () => {
    const books = chfBooks();
    const entry = books.invoice(11_900, {
      lines: [
        { account: '1400', debit_minor: 11_900, credit_minor: 0 },
        { account: '8400', debit_minor: 0, credit_minor: 10_000 },
        { account: '8400', debit_minor: 0, credit_minor: 1_900 },
      ],
      currency: 'EUR',
    });
    const who = await tokens(books, ['ledger:stage']);
    const res = await call('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token: who.alice,
      body: { reversal_date: '2026-03-01' },
    });
    await expectAmount(who, res, { amount_minor: 11_900, currency: 'EUR' });
  });

  it('a statement import: Σ|amount| of its new transactions', async () => {
    const books = chfBooks();
    const account = books.account();
    const who = await tokens(books, ['bank:stage']);
    const s = await stack();
    const query =
      '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref';
    const raw = await fetch(`${s.baseUrl}/api/v1/cli/bank-accounts/${account}/statements/import/stage${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.alice}`, 'content-type': 'text/csv' },
      body: 'date,amount,name,text,ref\n2026-11-03,100.00,Alpha,inv 1,\n2026-11-04,-20.00,Beta,fee,\n',
    });
    await expectAmount(who, { status: raw.status, body: await raw.json() }, { amount_minor: 12_000, currency: 'EUR' });
  });

  it("a journal entry: Σ debits of its lines, in the entry's currency", async () => {
    const books = chfBooks();
    const account = books.account();
    const payment = books.txn(account, 11_900);
    const who = await tokens(books, ['ledger:stage']);
    const res = await call('POST', '/api/v1/cli/ledger/entries/stage', {
      token: who.alice,
      body: {
        entry_date: '2026-03-02',
        description: 'Sale less a fee',
        reference: 'INV-11',
        counterparty_id: books.cp('a'),
        currency: 'EUR',
        // Σ debits 12,000; the settlement line (what the transaction settles) 11,900.
        lines: [
          { account: '1400', debit_minor: 11_900, credit_minor: 0 },
          { account: '6855', debit_minor: 100, credit_minor: 0 },
          { account: '8400', debit_minor: 0, credit_minor: 12_000 },
        ],
        bank_transaction_id: payment,
      },
    });
    await expectAmount(who, res, { amount_minor: 12_000, currency: 'EUR' });
  });

  it("a bank match: Σ of its pairs' amounts, in the account's currency", async () => {
    const books = chfBooks();
    const account = books.account();
    const a = books.invoice(12_000, { currency: 'EUR' });
    const b = books.invoice(18_000, { currency: 'EUR' });
    const payment = books.txn(account, 40_000);
    const who = await tokens(books, ['bank:stage']);
    const res = await call('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: [
          { bank_transaction_id: payment, ledger_entry_id: a, amount_minor: 12_000 },
          { bank_transaction_id: payment, ledger_entry_id: b, amount_minor: 17_000 },
        ],
      },
    });
    await expectAmount(who, res, { amount_minor: 29_000, currency: 'EUR' });
  });

  it("a duplicate resolution: 0, in the organisation's base currency", async () => {
    const books = chfBooks();
    const { a, group } = duplicatePair(books);
    const who = await tokens(books, ['inbox:stage', 'inbox:read']);
    const res = await call('POST', `/api/v1/cli/bookkeeping/inbox/duplicates/${group}/resolve/stage`, {
      token: who.alice,
      body: { resolution: 'archive_duplicates', keep_document_id: a },
    });
    await expectAmount(who, res, { amount_minor: 0, currency: 'CHF' });
  });
});
