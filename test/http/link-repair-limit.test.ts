// The largest link repair (docs/reference/http-api.md §6.7 "Largest calls"): a
// record set of more than REPAIR_MAX_TRANSACTIONS transactions is refused
// before its plan is made, with its code and the limit, and nothing is
// stored.
import { expect } from 'chai';
import { REPAIR_MAX_TRANSACTIONS } from '../../shared/kinds/ledger-link-repair/plan.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

const PATH = '/api/v1/cli/bank-matches/ledger-link-repair/stage';

/** An account with `n` transactions of counterparty a and nothing to repair them against; the org's token. */
async function accountWith(n: number): Promise<{ books: Books; account: string; token: string }> {
  const books = new Books();
  const account = books.account();
  for (let i = 0; i < n; i += 1) books.txn(account, 100 + i, { booking_date: '2025-06-01' });
  const s = await stack();
  await s.load(books.file);
  return { books, account, token: await s.token(books.orgId, ['bank:stage']) };
}

async function dropOrg(orgId: string): Promise<void> {
  const db = (await stack()).db;
  for (const name of ['bank_accounts', 'bank_transactions', 'staged_operations', 'scope_locks', 'api_tokens'])
    await db.collection(name).deleteMany({ org_id: orgId });
  await db.collection('orgs').deleteOne({ _id: orgId } as never);
}

describe('link repair: the largest record set', function () {
  this.timeout(300_000);

  it(`a record set of ${REPAIR_MAX_TRANSACTIONS + 1} transactions: 422 repair_too_large with the count and the limit, nothing staged`, async () => {
    const { books, account, token } = await accountWith(REPAIR_MAX_TRANSACTIONS + 1);
    try {
      let res = await call('POST', PATH, {
        token,
        body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2025-12-31' },
      });
      for (const until = Date.now() + 120_000; res.status === 202 && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        res = await call('GET', res.headers.get('location')!, { token });
      }
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('repair_too_large');
      expect(res.body.error.details).to.deep.equal({
        bank_account_id: account,
        counterparty_id: books.cp('a'),
        transactions: REPAIR_MAX_TRANSACTIONS + 1,
        limit: REPAIR_MAX_TRANSACTIONS,
      });
      const db = (await stack()).db;
      expect(await db.collection('staged_operations').countDocuments({ org_id: books.orgId })).to.equal(0);
      expect(await db.collection('scope_locks').countDocuments({ org_id: books.orgId })).to.equal(0);
    } finally {
      await dropOrg(books.orgId);
    }
  });
});
