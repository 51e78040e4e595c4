// Ids never contain `:`, the separator of plan-lock keys (docs/reference/http-api.md §5):
// every staging endpoint refuses one with 400 and a pointer, before any job runs.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

describe('ids with a colon are refused on every staging endpoint', () => {
  const cases = [
    {
      name: 'reconcile stage: bank_account_id',
      path: '/api/v1/cli/bank-matches/reconcile/stage',
      body: {
        bank_account_id: 'a:b',
        statement: { end_date: '2026-01-31', closing_balance_minor: 0, currency: 'EUR' },
        transaction_ids: ['bt_1'],
      },
      pointer: '/bank_account_id',
    },
    {
      name: 'reconcile stage: a transaction id',
      path: '/api/v1/cli/bank-matches/reconcile/stage',
      body: {
        bank_account_id: 'ba_1',
        statement: { end_date: '2026-01-31', closing_balance_minor: 0, currency: 'EUR' },
        transaction_ids: ['bt:1'],
      },
      pointer: '/transaction_ids/0',
    },
    {
      name: 'link repair stage: bank_account_id',
      path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      body: { bank_account_id: 'a:b', counterparty_id: 'cp_1' },
      pointer: '/bank_account_id',
    },
    {
      name: 'link repair stage: counterparty_id',
      path: '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      body: { bank_account_id: 'ba_1', counterparty_id: 'a:b' },
      pointer: '/counterparty_id',
    },
    {
      name: 'reversal stage: the entry id in the path',
      path: '/api/v1/cli/ledger/entries/a:b/reverse/stage',
      body: {},
      pointer: '/path/entry_id',
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name} = "a:b" with 400 validation_failed at ${c.pointer}`, async () => {
      const books = new Books();
      await (await stack()).load(books.file);
      const token = await (await stack()).token(books.orgId, ['bank:stage', 'ledger:stage']);
      const res = await call('POST', c.path, { token, body: c.body });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.errors.map((e: { pointer: string }) => e.pointer)).to.include(c.pointer);
    });
  }
});
