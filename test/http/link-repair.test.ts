import { expect } from 'chai';
import { utcDate } from '../../shared/domain/dates.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { storedOperation } from '../helpers/staged.js';
import { IN_CHUNK_SIZE } from '../../shared/storage/in-chunks.js';
import { EQUALITY_QUERY_MAX } from '../../shared/storage/ferretdb/driver-strategy.js';
import type { LinkRepairData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

const PATH = '/api/v1/cli/bank-matches/ledger-link-repair/stage';

async function load(books: Books, scopes: TokenScope[] = ['bank:stage']): Promise<string> {
  const s = await stack();
  await s.load(books.file);
  return s.token(books.orgId, scopes);
}

async function stagedCount(orgId: string): Promise<{ operations: number; locks: number }> {
  const db = (await stack()).db;
  return {
    operations: await db.collection('staged_operations').countDocuments({ org_id: orgId }),
    locks: await db.collection('scope_locks').countDocuments({ org_id: orgId }),
  };
}

async function dropOrg(orgId: string): Promise<void> {
  const db = (await stack()).db;
  for (const name of [
    'ledger_entries',
    'bank_accounts',
    'bank_transactions',
    'bank_links',
    'staged_operations',
    'staged_operation_bodies',
    'scope_locks',
    'audit_events',
    'api_tokens',
  ]) {
    await db.collection(name).deleteMany({ org_id: orgId });
  }
  await db.collection('orgs').deleteOne({ _id: orgId } as never);
}

/**
 * Counterparty a on account `account`, as of 2026-02-28:
 * receivables e1 6,000 (01-05), e2 4,000 (01-20), e3 3,000 (02-01); eOther
 * 500 belongs to counterparty b. t1 +6,000 (02-03) is linked 4,000 to e2 and
 * 2,000 to e1; t2 +4,000 (02-10) is linked to e1; t3 +1,000 (02-12) has no
 * link; t4 +500 (02-14) is linked to eOther; tLate +700 (03-05) is after
 * as_of. A transaction of another account, tElsewhere, holds 1,000 of e3
 * (a frozen link).
 */
function outOfOrderBooks() {
  const books = new Books();
  const account = books.account();
  const elsewhere = books.account({ name: 'Savings' });
  const e1 = books.invoice(6_000, { entry_date: '2026-01-05' });
  const e2 = books.invoice(4_000, { entry_date: '2026-01-20' });
  const e3 = books.invoice(3_000, { entry_date: '2026-02-01' });
  const eOther = books.invoice(500, { entry_date: '2026-01-10', counterparty_id: books.cp('b') });
  const t1 = books.txn(account, 6_000, { booking_date: '2026-02-03' });
  const t2 = books.txn(account, 4_000, { booking_date: '2026-02-10' });
  const t3 = books.txn(account, 1_000, { booking_date: '2026-02-12' });
  const t4 = books.txn(account, 500, { booking_date: '2026-02-14' });
  const tLate = books.txn(account, 700, { booking_date: '2026-03-05' });
  const tElsewhere = books.txn(elsewhere, 1_000, { booking_date: '2026-02-05' });
  const l1 = books.link(t1, e2, 4_000);
  const l2 = books.link(t1, e1, 2_000);
  const l3 = books.link(t2, e1, 4_000);
  const l4 = books.link(t4, eOther, 500);
  const lElsewhere = books.link(tElsewhere, e3, 1_000);
  return { books, account, e1, e2, e3, eOther, t1, t2, t3, t4, tLate, l1, l2, l3, l4, lElsewhere };
}

/** One receivable fully paid by one transaction, linked as FIFO wants it. */
function settledBooks() {
  const books = new Books();
  const account = books.account();
  const entry = books.invoice(5_000, { entry_date: '2026-01-05' });
  const txn = books.txn(account, 5_000, { booking_date: '2026-01-10' });
  const link = books.link(txn, entry, 5_000);
  return { books, account, entry, txn, link };
}

describe('POST /bank-matches/ledger-link-repair/stage', () => {
  it('stages the FIFO repair of out-of-order links: 201, Location, the exact actions, and a staged ledger_link_repair operation', async () => {
    const b = outOfOrderBooks();
    const token = await load(b.books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: b.account, counterparty_id: b.books.cp('a'), as_of: '2026-02-28', note: 'month end' },
    });

    expect(res.status).to.equal(201);
    expect(res.headers.get('x-request-id')).to.be.a('string').and.equal(res.body.request_id);
    expect(res.body).to.include({ ok: true, api_version: 'v1', operation: 'ledger_link_repair.stage' });
    expect(res.body.warnings).to.deep.equal([]);
    const data = res.body.data;
    expect(res.headers.get('location')).to.equal(`/api/v1/cli/staged-operations/${data.staged_operation_id}`);
    expect(data).to.include({ outcome: 'staged', status: 'staged' });
    expect(data.staged_operation_id).to.match(/^stg_/);
    expect(data.expires_at).to.be.a('string');
    expect(data.blockers).to.deep.equal([]);
    expect(data.plan).to.deep.equal({
      bank_account_id: b.account,
      counterparty_id: b.books.cp('a'),
      as_of: '2026-02-28',
      actions: [
        {
          kind: 'move',
          bank_transaction_id: b.t1,
          link_id: b.l1,
          from_ledger_entry_id: b.e2,
          to_ledger_entry_id: b.e1,
          amount_minor: 4_000,
        },
        {
          kind: 'move',
          bank_transaction_id: b.t2,
          link_id: b.l3,
          from_ledger_entry_id: b.e1,
          to_ledger_entry_id: b.e2,
          amount_minor: 4_000,
        },
        { kind: 'link', bank_transaction_id: b.t3, ledger_entry_id: b.e3, amount_minor: 1_000 },
        {
          kind: 'move',
          bank_transaction_id: b.t4,
          link_id: b.l4,
          from_ledger_entry_id: b.eOther,
          to_ledger_entry_id: b.e3,
          amount_minor: 500,
        },
      ],
      summary: {
        moves: 3,
        links: 1,
        unlinks: 0,
        moved_minor: 8_500,
        linked_minor: 1_000,
        unlinked_minor: 0,
        // e3: 3,000 − 1,000 frozen (tElsewhere) − 1,000 (t3) − 500 (t4).
        unallocated_transaction_minor: 0,
        uncovered_entry_minor: 500,
      },
    });
    expect(data.plan_hash).to.equal(planHash(data.plan));

    const stored = (await storedOperation(data.staged_operation_id))!;
    expect(stored).to.include({
      status: 'staged',
      kind: 'ledger_link_repair',
      org_id: b.books.orgId,
      created_by: 'alice',
      plan_hash: data.plan_hash,
    });
    expect(stored.scope_key).to.equal(`repair:${b.account}:${b.books.cp('a')}`);
    expect(stored.plan).to.deep.equal(data.plan);
    expect(stored.input).to.deep.equal({
      bank_account_id: b.account,
      counterparty_id: b.books.cp('a'),
      as_of: '2026-02-28',
      note: 'month end',
    });
    expect(stored.preconditions[0]).to.deep.equal({ collection: 'orgs', id: b.books.orgId, version: 1 });
    const v = (collection: string, id: string) => ({ collection, id, version: 1 });
    expect(stored.preconditions.slice(1)).to.have.deep.members([
      v('bank_accounts', b.account),
      v('bank_links', b.l1),
      v('bank_links', b.l2),
      v('bank_links', b.l3),
      v('bank_links', b.l4),
      v('bank_links', b.lElsewhere),
      v('bank_transactions', b.t1),
      v('bank_transactions', b.t2),
      v('bank_transactions', b.t3),
      v('bank_transactions', b.t4),
      v('bank_transactions', b.tLate),
      v('ledger_entries', b.e1),
      v('ledger_entries', b.e2),
      v('ledger_entries', b.e3),
      v('ledger_entries', b.eOther),
    ]);
    expect(await stagedCount(b.books.orgId)).to.deep.include({ operations: 1 });
  });

  it('answers blocked (200) with every blocker in contract order, no plan, and writes nothing', async () => {
    const books = new Books();
    const account = books.account();
    books.invoice(5_000, { entry_date: '2026-01-05' });
    const theirs = books.invoice(2_000, { entry_date: '2026-01-06', counterparty_id: books.cp('b') });
    const dollars = books.txn(account, 1_000, { booking_date: '2026-01-08', currency: 'USD' });
    const reconciledTxn = books.txn(account, 2_000, {
      booking_date: '2026-01-09',
      status: 'reconciled',
      reconciliation_id: 'rec_1',
    });
    const frozen = books.link(reconciledTxn, theirs, 2_000);
    const token = await load(books);

    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('location')).to.equal(null);
    expect(res.body).to.include({ ok: true, operation: 'ledger_link_repair.stage' });
    expect(res.body.data).to.deep.equal({
      outcome: 'blocked',
      blockers: [
        { code: 'currency_mismatch', ids: [dollars] },
        { code: 'frozen_link_to_other_counterparty', ids: [frozen] },
      ],
      plan: null,
      plan_hash: null,
    });
    expect(await stagedCount(books.orgId)).to.deep.equal({ operations: 0, locks: 0 });
  });

  it('answers noop (200) with the plan and its hash when links already follow FIFO, as of today (UTC) by default', async () => {
    const { books, account } = settledBooks();
    const token = await load(books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterparty_id: books.cp('a') },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('location')).to.equal(null);
    const data = res.body.data;
    expect(data).to.include({ outcome: 'noop' });
    expect(data).not.to.have.property('staged_operation_id');
    expect(data.blockers).to.deep.equal([]);
    expect(data.plan).to.deep.equal({
      bank_account_id: account,
      counterparty_id: books.cp('a'),
      as_of: utcDate(new Date()),
      actions: [],
      summary: {
        moves: 0,
        links: 0,
        unlinks: 0,
        moved_minor: 0,
        linked_minor: 0,
        unlinked_minor: 0,
        unallocated_transaction_minor: 0,
        uncovered_entry_minor: 0,
      },
    });
    expect(data.plan_hash).to.equal(planHash(data.plan));
    expect(await stagedCount(books.orgId)).to.deep.equal({ operations: 0, locks: 0 });
  });

  it('answers noop (200) for a counterparty with nothing in its record set', async () => {
    const { books, account } = settledBooks();
    const token = await load(books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterparty_id: books.cp('nobody'), as_of: '2026-02-28' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data.outcome).to.equal('noop');
    expect(res.body.data.plan.actions).to.deep.equal([]);
  });

  // The ids of a scope are read one way for a few, another for more, and on
  // FerretDB a third beyond one `$in` chunk (storage/ferretdb/driver-strategy.ts).
  for (const n of [EQUALITY_QUERY_MAX + 10, IN_CHUNK_SIZE + 5])
    it(`loads a record set of ${n} transactions, entries and links completely`, async () => {
      // Every transaction t_i is linked to o_i of counterparty b; a transaction
      // of another account holds e_0 whole, so FIFO pays e_(i+1) with t_i and
      // nothing is left for the last transaction.
      const books = new Books();
      const account = books.account();
      const elsewhere = books.account({ name: 'Savings' });
      const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      const e: string[] = [];
      const t: string[] = [];
      const o: string[] = [];
      const l: string[] = [];
      for (let i = 0; i < n; i += 1) {
        e.push(books.invoice(100, { entry_date: day(i) }));
        o.push(books.invoice(100, { entry_date: day(i), counterparty_id: books.cp('b') }));
        t.push(books.txn(account, 100, { booking_date: day(i) }));
        l.push(books.link(t[i]!, o[i]!, 100));
      }
      books.link(books.txn(elsewhere, 100, { booking_date: day(0) }), e[0]!, 100);
      const token = await load(books);

      let res;
      try {
        res = await call<LinkRepairData>('POST', PATH, {
          token,
          body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: day(n) },
        });
        // On a loaded machine this big plan can outlive the API's wait (202): its job's answer is the same answer.
        for (const until = Date.now() + 120_000; res.status === 202 && Date.now() < until;) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          res = await call<LinkRepairData>('GET', res.headers.get('location')!, { token });
        }
      } finally {
        // why: FerretDB reads whole collections for some queries (the importer's
        // `_id` `$in`); thousands of left-over records would slow every later test.
        await dropOrg(books.orgId);
      }
      expect(res.status).to.equal(201);
      const expected = t.map((txn, i) =>
        i < n - 1
          ? {
              kind: 'move',
              bank_transaction_id: txn,
              link_id: l[i],
              from_ledger_entry_id: o[i],
              to_ledger_entry_id: e[i + 1],
              amount_minor: 100,
            }
          : { kind: 'unlink', bank_transaction_id: txn, link_id: l[i], ledger_entry_id: o[i], amount_minor: 100 },
      );
      expect(res.body.data.plan.actions).to.deep.equal(expected);
      expect(res.body.data.plan.summary).to.deep.equal({
        moves: n - 1,
        links: 0,
        unlinks: 1,
        moved_minor: (n - 1) * 100,
        linked_minor: 0,
        unlinked_minor: 100,
        unallocated_transaction_minor: 100,
        uncovered_entry_minor: 0,
      });
    });

  it('answers 404 not_found for a bank account that does not exist', async () => {
    const { books } = settledBooks();
    const token = await load(books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: 'ba_missing', counterparty_id: books.cp('a') },
    });
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ ok: false, operation: 'ledger_link_repair.stage' });
    expect(res.body.error).to.deep.include({
      code: 'not_found',
      retryable: false,
      details: { resource: 'Bank account', id: 'ba_missing' },
    });
  });

  it("answers 404 not_found, not 403, for another organisation's bank account", async () => {
    const mine = settledBooks();
    const theirs = settledBooks();
    const token = await load(mine.books);
    await (await stack()).load(theirs.books.file);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: theirs.account, counterparty_id: theirs.books.cp('a') },
    });
    expect(res.status).to.equal(404);
    expect(res.body.error).to.deep.include({
      code: 'not_found',
      details: { resource: 'Bank account', id: theirs.account },
    });
    expect(await stagedCount(theirs.books.orgId)).to.deep.equal({ operations: 0, locks: 0 });
  });

  it('refuses an as_of that is not a real calendar date: 400 validation_failed at /as_of', async () => {
    const { books, account } = settledBooks();
    const token = await load(books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-30' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(res.body.error.errors).to.deep.equal([
      { pointer: '/as_of', message: 'must be a real calendar date YYYY-MM-DD' },
    ]);
  });

  it('refuses unknown fields and missing required ones: 400 validation_failed with a pointer for each', async () => {
    const { books, account } = settledBooks();
    const token = await load(books);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterpart_id: books.cp('a') },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('validation_failed');
    expect(res.body.error.errors).to.have.deep.members([
      { pointer: '/counterpart_id', message: 'is not a known field' },
      { pointer: '/counterparty_id', message: 'is required' },
    ]);
  });

  it('answers 403 forbidden for a token without bank:stage', async () => {
    const { books, account } = settledBooks();
    const token = await load(books, ['ledger:stage', 'inbox:read']);
    const res = await call<LinkRepairData>('POST', PATH, {
      token,
      body: { bank_account_id: account, counterparty_id: books.cp('a') },
    });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.deep.include({ code: 'forbidden', details: { required_scope: 'bank:stage' } });
  });

  it('refuses a second, different plan for a subject with a pending repair: 409 pending_operation with its id', async () => {
    const b = outOfOrderBooks();
    const token = await load(b.books);
    const body = { bank_account_id: b.account, counterparty_id: b.books.cp('a') };
    const first = await call<LinkRepairData>('POST', PATH, { token, body: { ...body, as_of: '2026-02-28' } });
    expect(first.status).to.equal(201);
    // as_of is part of the plan: a different one is a different plan.
    const second = await call<LinkRepairData>('POST', PATH, { token, body: { ...body, as_of: '2026-03-31' } });
    expect(second.status).to.equal(409);
    expect(second.body.error).to.deep.include({
      code: 'pending_operation',
      retryable: true,
      details: { staged_operation_ids: [first.body.data.staged_operation_id] },
    });
    expect(await stagedCount(b.books.orgId)).to.deep.include({ operations: 1 });
  });

  it('answers the pending operation itself (200) when the very same repair is staged again', async () => {
    const b = outOfOrderBooks();
    const token = await load(b.books);
    const body = { bank_account_id: b.account, counterparty_id: b.books.cp('a'), as_of: '2026-02-28' };
    const first = await call<LinkRepairData>('POST', PATH, { token, body });
    expect(first.status).to.equal(201);
    const again = await call<LinkRepairData>('POST', PATH, { token, body });
    expect(again.status).to.equal(200);
    expect(again.body.data).to.include({
      outcome: 'staged',
      staged_operation_id: first.body.data.staged_operation_id,
      plan_hash: first.body.data.plan_hash,
    });
    expect(again.body.data.blockers).to.deep.equal([]);
    expect(again.headers.get('location')).to.equal(
      `/api/v1/cli/staged-operations/${first.body.data.staged_operation_id}`,
    );
    expect(again.body.warnings.map((w: { code: string }) => w.code)).to.deep.equal(['already_staged']);
    expect(await stagedCount(b.books.orgId)).to.deep.include({ operations: 1 });
  });
});
