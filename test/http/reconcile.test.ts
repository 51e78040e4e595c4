import { expect } from 'chai';
import type { ReconcileData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, countStagedWithPlan, doc, locksOf, show, storedOperation } from '../helpers/staged.js';

const PATH = '/api/v1/cli/bank-matches/reconcile/stage';

/**
 * An EUR account opened at 100,000 with, on or before 2026-02-28:
 * an inflow of 12,000 (one link) and an outflow of 5,000 (two links, whose
 * ids sort opposite to their creation order). Both are fully linked, so
 * 100,000 + 12,000 − 5,000 = 107,000 closes a statement of the two.
 */
async function statementBooks(
  options: { account?: Parameters<Books['account']>[0]; extra?: (books: Books, account: string) => void } = {},
) {
  const books = new Books();
  const account = books.account({ opening_balance_minor: 100_000, ...options.account });
  const inflow = books.linkedTxn(account, 12_000, { booking_date: '2026-02-10' });
  const payable = books.invoice(-5_000, { entry_date: '2026-02-01' });
  const outflow = books.txn(account, -5_000, { booking_date: '2026-02-05' });
  const linkB = books.link(outflow, payable, 3_000, { id: `lnk_${books.uid}_b` });
  const linkA = books.link(outflow, payable, 2_000, { id: `lnk_${books.uid}_a` });
  options.extra?.(books, account);
  const s = await stack();
  await s.load(books.file);
  const token = await s.token(books.orgId, ['bank:stage']);
  return { books, account, inflow, outflow, payable, linkA, linkB, token };
}

const statement = (fields: Record<string, unknown> = {}) => ({
  end_date: '2026-02-28',
  closing_balance_minor: 107_000,
  currency: 'EUR',
  ...fields,
});

describe('POST /bank-matches/reconcile/stage', () => {
  it('stages a statement: 201, Location, envelope, the exact plan, and a bank_reconcile operation with its preconditions and locks', async () => {
    const { books, account, inflow, outflow, payable, linkA, linkB, token } = await statementBooks();
    const res = await call<ReconcileData>('POST', PATH, {
      token,
      body: {
        bank_account_id: account,
        statement: statement({ reference: 'STM-2026-02' }),
        transaction_ids: [inflow.txn, outflow],
        note: 'February statement',
      },
    });

    expect(res.status).to.equal(201);
    expect(res.headers.get('x-request-id')).to.be.a('string').and.equal(res.body.request_id);
    expect(res.body).to.include({ ok: true, api_version: 'v1', operation: 'bank_reconcile.stage' });
    expect(res.body.warnings).to.deep.equal([]);
    const data = res.body.data;
    expect(res.headers.get('location')).to.equal(`/api/v1/cli/staged-operations/${data.staged_operation_id}`);
    expect(data).to.include({ outcome: 'staged', status: 'staged' });
    expect(data.staged_operation_id).to.match(/^stg_/);
    expect(Date.parse(data.expires_at)).to.be.greaterThan(Date.now());
    expect(data.plan).to.deep.equal({
      bank_account_id: account,
      statement: { end_date: '2026-02-28', closing_balance_minor: 107_000, currency: 'EUR', reference: 'STM-2026-02' },
      opening_balance_minor: 100_000,
      cleared_total_minor: 7_000,
      closing_balance_minor: 107_000,
      // By booking date: the outflow of 02-05 first; its links by link id.
      transactions: [
        {
          bank_transaction_id: outflow,
          booking_date: '2026-02-05',
          amount_minor: -5_000,
          links: [
            { link_id: linkA, ledger_entry_id: payable, amount_minor: 2_000 },
            { link_id: linkB, ledger_entry_id: payable, amount_minor: 3_000 },
          ],
        },
        {
          bank_transaction_id: inflow.txn,
          booking_date: '2026-02-10',
          amount_minor: 12_000,
          links: [{ link_id: inflow.link, ledger_entry_id: inflow.entry, amount_minor: 12_000 }],
        },
      ],
      left_out: { count: 0, first_ids: [] },
    });
    expect(data.plan_hash).to.match(/^[0-9a-f]{64}$/);

    const db = (await stack()).db;
    const stored = await storedOperation(data.staged_operation_id);
    expect(stored).to.include({
      status: 'staged',
      kind: 'bank_reconcile',
      org_id: books.orgId,
      created_by: 'alice',
      plan_hash: data.plan_hash,
      scope_key: `reconcile:${account}`,
    });
    expect(stored!.plan).to.deep.equal(data.plan);
    expect(stored!.input).to.deep.include({ note: 'February statement' });
    expect(stored!.preconditions).to.deep.equal([
      { collection: 'orgs', id: books.orgId, version: 1 },
      { collection: 'bank_accounts', id: account, version: 1 },
      { collection: 'bank_transactions', id: outflow, version: 1 },
      { collection: 'bank_transactions', id: inflow.txn, version: 1 },
      { collection: 'bank_links', id: linkA, version: 1 },
      { collection: 'bank_links', id: linkB, version: 1 },
      { collection: 'bank_links', id: inflow.link, version: 1 },
    ]);
    const locks = await db
      .collection('scope_locks')
      .find({ staged_operation_id: data.staged_operation_id } as never)
      .toArray();
    expect(locks.map((l) => l.key as string).sort()).to.deep.equal(
      [`${books.orgId}:bt:${inflow.txn}`, `${books.orgId}:bt:${outflow}`, `${books.orgId}:reconcile:${account}`].sort(),
    );
  });

  it('reports unreconciled transactions up to end_date left out of the statement, in the plan and as a warning', async () => {
    const { account, inflow, outflow, token, books } = await statementBooks({
      extra: (b, acc) => {
        b.txn(acc, 700, { id: `bt_${b.uid}_late_feb`, booking_date: '2026-02-20' });
        b.txn(acc, -300, { id: `bt_${b.uid}_early_feb`, booking_date: '2026-02-01' });
        b.txn(acc, 900, { booking_date: '2026-02-03', status: 'reconciled', reconciliation_id: 'rec_old' }); // reconciled: not left out
        b.txn(acc, 400, { booking_date: '2026-03-01' }); // after end_date: not left out
      },
    });
    const res = await call<ReconcileData>('POST', PATH, {
      token,
      body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn, outflow] },
    });

    expect(res.status).to.equal(201);
    const leftOut = { count: 2, first_ids: [`bt_${books.uid}_early_feb`, `bt_${books.uid}_late_feb`] };
    expect(res.body.data.plan.left_out).to.deep.equal(leftOut);
    expect(res.body.data.plan.statement.reference).to.equal(null);
    expect(res.body.warnings).to.have.length(1);
    expect(res.body.warnings[0]).to.deep.include({ code: 'left_out_unreconciled', details: leftOut });
    expect(res.body.warnings[0]?.message).to.be.a('string').and.include('2 unreconciled transactions');
  });

  it('reads the requested transactions and their links in chunks: a statement of 2,100 transactions stages', async function () {
    this.timeout(120_000);
    const books = new Books();
    const account = books.account({ opening_balance_minor: 0 });
    const entry = books.invoice(2_100);
    const ids: string[] = [];
    for (let i = 0; i < 2_100; i += 1) {
      const txn = books.txn(account, 1, { booking_date: '2026-02-10' });
      books.link(txn, entry, 1);
      ids.push(txn);
    }
    const s = await stack();
    await s.load(books.file);
    const token = await s.token(books.orgId, ['bank:stage']);
    const res = await call<ReconcileData>('POST', PATH, {
      token,
      body: { bank_account_id: account, statement: statement({ closing_balance_minor: 2_100 }), transaction_ids: ids },
    });
    expect(res.status, res.body.error?.code).to.equal(201);
    expect(res.body.data.plan.transactions).to.have.length(2_100);
    expect(res.body.data.plan.cleared_total_minor).to.equal(2_100);
    expect(res.body.data.plan.transactions.every((t: { links: unknown[] }) => t.links.length === 1)).to.equal(true);
  });

  describe('checks, each with its own code (docs/reference/http-api.md §7)', () => {
    it('answers 404 not_found for an account that does not exist', async () => {
      const { token, inflow } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: { bank_account_id: 'ba_missing', statement: statement(), transaction_ids: [inflow.txn] },
      });
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ ok: false, operation: 'bank_reconcile.stage' });
      expect(res.body.error).to.deep.include({
        code: 'not_found',
        status: 404,
        retryable: false,
        details: { resource: 'Bank account', id: 'ba_missing' },
      });
    });

    it("answers 404 not_found, not 403, for another organisation's account", async () => {
      const mine = await statementBooks();
      const theirs = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token: mine.token,
        body: {
          bank_account_id: theirs.account,
          statement: statement(),
          transaction_ids: [theirs.inflow.txn, theirs.outflow],
        },
      });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.deep.include({
        code: 'not_found',
        details: { resource: 'Bank account', id: theirs.account },
      });
    });

    it('refuses a statement in another currency: 422 currency_mismatch', async () => {
      const { account, inflow, outflow, token } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ currency: 'USD' }),
          transaction_ids: [inflow.txn, outflow],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'currency_mismatch',
        retryable: false,
        details: { account_currency: 'EUR', statement_currency: 'USD' },
      });
    });

    it('refuses a statement ending before the last reconciliation: 422 statement_before_last_reconciliation', async () => {
      const { account, inflow, outflow, token } = await statementBooks({
        account: { reconciled_through: { date: '2026-03-31', balance_minor: 100_000 } },
      });
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ end_date: '2026-03-30' }),
          transaction_ids: [inflow.txn, outflow],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'statement_before_last_reconciliation',
        details: { end_date: '2026-03-30', reconciled_through_date: '2026-03-31' },
      });
    });

    it("refuses ids that are not transactions of this account: 422 unknown_transactions, sorted (missing, another account's, another org's)", async () => {
      const theirs = await statementBooks();
      const { books, account, inflow, token } = await statementBooks({
        extra: (b) => {
          const savings = b.account({ id: `ba_${b.uid}_savings`, name: 'Savings' });
          b.txn(savings, 50, { id: `bt_${b.uid}_savings` });
        },
      });
      const missing = `bt_${books.uid}_missing`;
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement(),
          transaction_ids: [missing, inflow.txn, `bt_${books.uid}_savings`, theirs.inflow.txn],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'unknown_transactions',
        details: { transaction_ids: [`bt_${books.uid}_missing`, `bt_${books.uid}_savings`, theirs.inflow.txn].sort() },
      });
    });

    it('refuses a transaction of another account of the same org: 422 unknown_transactions', async () => {
      const { books, account, inflow, outflow, token } = await statementBooks({
        extra: (b) => {
          const savings = b.account({ id: `ba_${b.uid}_savings`, name: 'Savings' });
          b.linkedTxn(savings, 50, { id: `bt_${b.uid}_savings` });
        },
      });
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 107_050 }),
          transaction_ids: [inflow.txn, outflow, `bt_${books.uid}_savings`],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'unknown_transactions',
        details: { transaction_ids: [`bt_${books.uid}_savings`] },
      });
    });

    it('refuses transactions already reconciled: 409 already_reconciled with their ids', async () => {
      const { books, account, inflow, outflow, token } = await statementBooks({
        extra: (b, acc) => {
          b.linkedTxn(acc, 800, {
            id: `bt_${b.uid}_done`,
            booking_date: '2026-01-20',
            status: 'reconciled',
            reconciliation_id: 'rec_jan',
          });
        },
      });
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 107_800 }),
          transaction_ids: [inflow.txn, outflow, `bt_${books.uid}_done`],
        },
      });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'already_reconciled',
        retryable: false,
        details: { transaction_ids: [`bt_${books.uid}_done`] },
      });
    });

    it('refuses transactions booked after end_date: 422 transaction_after_statement_end with their ids', async () => {
      const { books, account, inflow, outflow, token } = await statementBooks({
        extra: (b, acc) => {
          b.linkedTxn(acc, 800, { id: `bt_${b.uid}_march`, booking_date: '2026-03-01' });
        },
      });
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 107_800 }),
          transaction_ids: [inflow.txn, outflow, `bt_${books.uid}_march`],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'transaction_after_statement_end',
        details: { transaction_ids: [`bt_${books.uid}_march`] },
      });
    });

    it('refuses transactions not exactly linked: 422 unmatched_transactions with each remainder, by id', async () => {
      const { books, account, inflow, outflow, token } = await statementBooks({
        extra: (b, acc) => {
          const invoice = b.invoice(1_000);
          b.link(b.txn(acc, 1_000, { id: `bt_${b.uid}_u1` }), invoice, 400); // under-linked: 600 left
          b.txn(acc, -250, { id: `bt_${b.uid}_u2` }); // not linked at all
          b.link(b.txn(acc, 300, { id: `bt_${b.uid}_u0` }), invoice, 500); // over-linked: −200
        },
      });
      const ids = [inflow.txn, outflow, `bt_${books.uid}_u1`, `bt_${books.uid}_u2`, `bt_${books.uid}_u0`];
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 108_050 }),
          transaction_ids: ids,
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'unmatched_transactions',
        details: {
          transactions: [
            { bank_transaction_id: `bt_${books.uid}_u0`, remainder_minor: -200 },
            { bank_transaction_id: `bt_${books.uid}_u1`, remainder_minor: 600 },
            { bank_transaction_id: `bt_${books.uid}_u2`, remainder_minor: 250 },
          ],
        },
      });
    });

    it('refuses a closing balance that does not add up: 422 out_of_balance, opening taken from reconciled_through', async () => {
      const { account, inflow, outflow, token } = await statementBooks({
        account: { opening_balance_minor: 0, reconciled_through: { date: '2026-01-31', balance_minor: 50_000 } },
      });
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 57_001 }),
          transaction_ids: [inflow.txn, outflow],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'out_of_balance',
        details: { expected_closing_minor: 57_000, difference_minor: 1 },
      });
    });

    it('answers the first failing check only: currency before unknown ids before balance', async () => {
      const { account, token } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ currency: 'CHF', closing_balance_minor: 1 }),
          transaction_ids: ['bt_nowhere'],
        },
      });
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('currency_mismatch');
    });
  });

  describe('request validation and access', () => {
    it('refuses duplicated transaction ids: 400 validation_failed with a pointer at the repeat', async () => {
      const { account, inflow, outflow, token } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn, outflow, inflow.txn] },
      });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ operation: 'bank_reconcile.stage' });
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.errors).to.deep.equal([{ pointer: '/transaction_ids/2', message: 'duplicates item 0' }]);
    });

    it('refuses 10,001 transaction ids (and none): 400 validation_failed at /transaction_ids', async () => {
      const { account, token } = await statementBooks();
      const many = Array.from({ length: 10_001 }, (_, i) => `bt_${i}`);
      const tooMany = await call<ReconcileData>('POST', PATH, {
        token,
        body: { bank_account_id: account, statement: statement(), transaction_ids: many },
      });
      expect(tooMany.status).to.equal(400);
      expect(tooMany.body.error.errors).to.deep.equal([
        { pointer: '/transaction_ids', message: 'must NOT have more than 10000 items' },
      ]);
      const none = await call<ReconcileData>('POST', PATH, {
        token,
        body: { bank_account_id: account, statement: statement(), transaction_ids: [] },
      });
      expect(none.status).to.equal(400);
      expect(none.body.error.errors).to.deep.equal([
        { pointer: '/transaction_ids', message: 'must NOT have fewer than 1 items' },
      ]);
    });

    it('refuses unknown fields, impossible dates, non-ISO currencies, fractional amounts and missing fields, each with a pointer', async () => {
      const { inflow, token } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          statement: { end_date: '2026-02-30', closing_balance_minor: 10.5, currency: 'eur', extra: 1 },
          transaction_ids: [inflow.txn],
          notes: 'typo',
        },
      });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.errors.map((e: { pointer: string }) => e.pointer)).to.have.members([
        '/bank_account_id',
        '/notes',
        '/statement/extra',
        '/statement/end_date',
        '/statement/closing_balance_minor',
        '/statement/currency',
      ]);
    });

    it('answers 403 forbidden for a token without bank:stage', async () => {
      const { books, account, inflow, outflow } = await statementBooks();
      const token = await (await stack()).token(books.orgId, ['ledger:stage', 'inbox:read', 'staged:read']);
      const res = await call<ReconcileData>('POST', PATH, {
        token,
        body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn, outflow] },
      });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ operation: 'bank_reconcile.stage' });
      expect(res.body.error).to.deep.include({ code: 'forbidden', details: { required_scope: 'bank:stage' } });
    });

    it('answers 401 unauthenticated without a token', async () => {
      const { account, inflow } = await statementBooks();
      const res = await call<ReconcileData>('POST', PATH, {
        body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn] },
      });
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal('unauthenticated');
    });
  });

  describe('pending operations on the account', () => {
    it('refuses a different statement of the same account while one is pending, even over other transactions: 409 pending_operation', async () => {
      const { account, inflow, outflow, token } = await statementBooks();
      const first = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 95_000 }),
          transaction_ids: [outflow],
        },
      });
      expect(first.status).to.equal(201);
      const second = await call<ReconcileData>('POST', PATH, {
        token,
        body: {
          bank_account_id: account,
          statement: statement({ closing_balance_minor: 112_000 }),
          transaction_ids: [inflow.txn],
        },
      });
      expect(second.status).to.equal(409);
      expect(second.body.error).to.deep.include({
        code: 'pending_operation',
        retryable: true,
        details: { staged_operation_ids: [first.body.data.staged_operation_id] },
      });
    });

    it('answers the pending operation itself (200, same id, its warnings) when the very same statement is staged again', async () => {
      const { books, account, inflow, outflow, token } = await statementBooks({
        extra: (b, acc) => {
          b.txn(acc, 700, { id: `bt_${b.uid}_left`, booking_date: '2026-02-20' });
        },
      });
      const body = {
        bank_account_id: account,
        statement: statement({ reference: 'STM-1' }),
        transaction_ids: [inflow.txn, outflow],
        note: 'first try',
      };
      const first = await call<ReconcileData>('POST', PATH, { token, body });
      expect(first.status).to.equal(201);
      const again = await call<ReconcileData>('POST', PATH, { token, body });
      expect(again.status).to.equal(200);
      expect(again.headers.get('location')).to.equal(
        `/api/v1/cli/staged-operations/${first.body.data.staged_operation_id}`,
      );
      expect(again.body.data).to.deep.include({
        outcome: 'staged',
        staged_operation_id: first.body.data.staged_operation_id,
        plan_hash: first.body.data.plan_hash,
      });
      expect(again.body.data.plan).to.deep.equal(first.body.data.plan);
      expect(again.body.warnings.map((w: { code: string }) => w.code)).to.deep.equal([
        'already_staged',
        'left_out_unreconciled',
      ]);
      expect(again.body.warnings[1]?.details).to.deep.equal({ count: 1, first_ids: [`bt_${books.uid}_left`] });
      // The note is not part of the plan: another note is still the same plan.
      const otherNote = await call<ReconcileData>('POST', PATH, { token, body: { ...body, note: 'second try' } });
      expect(otherNote.status).to.equal(200);
      expect(otherNote.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
      const count = await countStagedWithPlan({ bank_account_id: account }, { kind: 'bank_reconcile' });
      expect(count).to.equal(1);
    });
  });
});

describe('POST /bank-matches/reconcile/stage: the lock date (docs/design/staged-lifecycle.md "Closed periods")', () => {
  const withLock = (lockDate: string) => ({
    extra: (b: Books) => {
      b.file.org.lock_date = lockDate;
    },
  });

  it('refuses a statement ending on the lock date: 422 period_locked, nothing staged', async () => {
    const { account, inflow, outflow, token } = await statementBooks(withLock('2026-02-28'));
    const res = await call<ReconcileData>('POST', PATH, {
      token,
      body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn, outflow] },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error).to.deep.include({
      code: 'period_locked',
      details: { end_date: '2026-02-28', lock_date: '2026-02-28' },
    });
    expect(await countStagedWithPlan({ bank_account_id: account }, { kind: 'bank_reconcile' })).to.equal(0);
  });

  it('stages transactions booked in the closed period through a later statement; once the lock reaches the statement end, apply answers 409 stale_plan period_locked and writes nothing', async () => {
    // Both transactions (02-05, 02-10) are on or before the lock date; the statement ends after it.
    const { books, account, inflow, outflow } = await statementBooks(withLock('2026-02-10'));
    const who = await actors(books.orgId);
    const staged = await call<ReconcileData>('POST', PATH, {
      token: who.alice,
      body: { bank_account_id: account, statement: statement(), transaction_ids: [inflow.txn, outflow] },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(who.bob, id)).status).to.equal(200);

    // The period is closed through February meanwhile, as `admin books import` does: the same books, a later lock date.
    const s = await stack();
    await s.load({ ...books.file, org: { ...books.file.org, lock_date: '2026-02-28' } });
    const applied = await apply(who.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect(applied.body.error.details).to.deep.include({
      staged_operation_id: id,
      reason: 'period_locked',
      lock_date: '2026-02-28',
      bank_account_id: account,
      end_date: '2026-02-28',
    });
    expect(applied.body.error.message).to.include('the reconciliation through 2026-02-28');
    expect((await show(who.bob, id)).body.data.status).to.equal('stale');
    for (const t of [inflow.txn, outflow])
      expect(await doc('bank_transactions', t)).to.include({ status: 'unreconciled', reconciliation_id: null });
    expect(await doc('bank_accounts', account)).to.include({ reconciled_through: null });
    expect(await locksOf(id)).to.equal(0);
  });
});
