// A link repair's apply checks the transactions and entries it read by their
// versions alone (docs/design/staged-lifecycle.md "Apply": the store port's
// versionsByIds): one changed by another writer after staging makes the apply
// stale, naming it, and nothing is written.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import type { StagedOperationData } from '../helpers/answers.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve } from '../helpers/staged.js';

/** Three unlinked transactions and three open invoices of counterparty a, and their repair staged and approved. */
async function approvedRepair() {
  const books = new Books();
  const account = books.account();
  const entries: string[] = [];
  const transactions: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    entries.push(books.invoice(100, { entry_date: `2026-01-0${i + 1}` }));
    transactions.push(books.txn(account, 100, { booking_date: `2026-01-1${i + 1}` }));
  }
  await (await stack()).load(books.file);
  const who = await actors(books.orgId);
  const staged = await call<StagedOperationData>('POST', '/api/v1/cli/bank-matches/ledger-link-repair/stage', {
    token: who.alice,
    body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-01-31' },
  });
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(who.bob, id)).status).to.equal(200);
  return { books, who, id, entries, transactions };
}

describe('link repair apply: the records it read by version', () => {
  for (const [collection, pick] of [
    ['bank_transactions', (r: Awaited<ReturnType<typeof approvedRepair>>) => r.transactions[1]!],
    ['ledger_entries', (r: Awaited<ReturnType<typeof approvedRepair>>) => r.entries[2]!],
  ] as const)
    it(`a ${collection} record changed after staging: 409 stale_plan naming it with both versions, no link written`, async () => {
      const repair = await approvedRepair();
      const db = (await stack()).db;
      const changed = pick(repair);
      await db.collection(collection).updateOne({ _id: changed } as never, { $inc: { version: 1 } });
      const res = await apply(repair.who.bob, repair.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      const body = res.body as unknown as { error: { code: string; details: { changed: unknown[] } } };
      expect(body.error.code).to.equal('stale_plan');
      expect(body.error.details.changed).to.deep.equal([
        { collection, id: changed, expected_version: 1, actual_version: 2 },
      ]);
      expect(await db.collection('bank_links').countDocuments({ org_id: repair.books.orgId })).to.equal(0);
    });
});
