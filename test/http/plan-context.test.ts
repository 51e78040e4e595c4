// docs/design/staged-lifecycle.md "Context": every staging answer with a plan,
// and show, carry the records the plan names as the books stood at staging
// time, outside the plan and its plan_hash.
import { expect } from 'chai';
import type { PlanContext } from '../../shared/domain/plan-context.js';
import { planHash } from '../../shared/domain/plan-hash.js';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import type { LinkRepairData, ReconcileData, ReversalData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { storedOperation } from '../helpers/staged.js';

const STAGED = '/api/v1/cli/staged-operations';

async function load(books: Books, scopes: TokenScope[]): Promise<string> {
  const s = await stack();
  await s.load(books.file);
  return s.token(books.orgId, [...scopes, 'staged:read', 'staged:approve']);
}

function entryOf(books: Books, id: string) {
  const e = books.file.ledger_entries.find((x) => x.id === id)!;
  const open = e.lines.reduce(
    (sum, l) => (['1400', '1600'].includes(l.account) ? sum + l.debit_minor - l.credit_minor : sum),
    0,
  );
  return {
    id,
    entry_date: e.entry_date,
    reference: e.reference,
    description: e.description,
    counterparty_id: e.counterparty_id,
    currency: e.currency,
    open_amount_minor: open,
  };
}

function txnOf(books: Books, id: string) {
  const t = books.file.bank_transactions.find((x) => x.id === id)!;
  return {
    id,
    booking_date: t.booking_date,
    amount_minor: t.amount_minor,
    currency: t.currency,
    counterparty_name: t.counterparty_name,
    remittance_info: t.remittance_info,
  };
}

/** Show answers the same plan, hash and context; the stored plan is the plan alone; a list item has no context. */
async function checkShowAndStore(
  token: string,
  data: { staged_operation_id: string; plan: unknown; plan_hash: string; context: PlanContext },
): Promise<void> {
  expect(data.plan_hash).to.equal(planHash(data.plan));
  expect(data.plan).to.not.have.property('context');
  const shown = await call<{ plan: unknown; plan_hash: string; context: PlanContext }>(
    'GET',
    `${STAGED}/${data.staged_operation_id}`,
    { token },
  );
  expect(shown.status).to.equal(200);
  expect(shown.body.data.plan).to.deep.equal(data.plan);
  expect(shown.body.data.plan_hash).to.equal(data.plan_hash);
  expect(shown.body.data.context).to.deep.equal(data.context);
  const stored = await storedOperation(data.staged_operation_id);
  expect(stored!.plan).to.deep.equal(data.plan);
  expect(stored!.context).to.deep.equal(data.context);
  const list = await call<{ items: Array<Record<string, unknown>> }>('GET', STAGED, { token });
  const item = list.body.data.items.find((i) => i.staged_operation_id === data.staged_operation_id)!;
  expect(item).to.include({ plan_hash: data.plan_hash });
  expect(item).to.not.have.property('context');
}

describe('data.context beside the plan', () => {
  it("a link repair: the account, the entries and transaction of its actions, and why FIFO chose the moved link's new entry", async () => {
    const books = new Books();
    const account = books.account();
    const e1 = books.invoice(6_000, { entry_date: '2026-01-05' });
    const e2 = books.invoice(4_000, { entry_date: '2026-01-20' });
    const t1 = books.txn(account, 6_000, { booking_date: '2026-02-03', remittance_info: 'INV 1' });
    const l1 = books.link(t1, e2, 4_000);
    books.link(t1, e1, 2_000);
    const token = await load(books, ['bank:stage']);
    const res = await call<LinkRepairData & { context: PlanContext }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      {
        token,
        body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' },
      },
    );
    expect(res.status).to.equal(201);
    const data = res.body.data;
    expect(data.plan.actions).to.deep.equal([
      {
        kind: 'move',
        bank_transaction_id: t1,
        link_id: l1,
        from_ledger_entry_id: e2,
        to_ledger_entry_id: e1,
        amount_minor: 4_000,
      },
    ]);
    expect(data.context).to.deep.equal({
      bank_account: { id: account, name: 'Main account', currency: 'EUR' },
      ledger_entries: [entryOf(books, e1), entryOf(books, e2)],
      bank_transactions: [txnOf(books, t1)],
      // e1 is the oldest of two open receivables; 6,000 open less its 2,000 link leaves 4,000, which the move covers.
      repair_actions: [
        {
          action_index: 0,
          ledger_entry_id: e1,
          fifo_position: 1,
          fifo_queue_length: 2,
          open_before_minor: 4_000,
          open_after_minor: 0,
        },
      ],
    });
    await checkShowAndStore(token, data);
  });

  it('a dry run carries the same context as the staging it previews, and the same plan_hash', async () => {
    const books = new Books();
    const account = books.account();
    const e1 = books.invoice(3_000, { entry_date: '2026-01-05' });
    const t1 = books.txn(account, 3_000, { booking_date: '2026-02-03' });
    const token = await load(books, ['bank:stage']);
    const body = { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' };
    const dry = await call<{ plan_hash: string; context: PlanContext }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage?dry_run=true',
      { token, body },
    );
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data.context).to.deep.equal({
      bank_account: { id: account, name: 'Main account', currency: 'EUR' },
      ledger_entries: [entryOf(books, e1)],
      bank_transactions: [txnOf(books, t1)],
      repair_actions: [
        {
          action_index: 0,
          ledger_entry_id: e1,
          fifo_position: 1,
          fifo_queue_length: 1,
          open_before_minor: 3_000,
          open_after_minor: 0,
        },
      ],
    });
    const real = await call<LinkRepairData & { context: PlanContext }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      { token, body },
    );
    expect(real.status).to.equal(201);
    expect(real.body.data.context).to.deep.equal(dry.body.data.context);
    expect(real.body.data.plan_hash).to.equal(dry.body.data.plan_hash);
  });

  it('a link repair that changes nothing (noop) still names its account', async () => {
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(5_000, { entry_date: '2026-01-05' });
    books.link(books.txn(account, 5_000, { booking_date: '2026-01-10' }), entry, 5_000);
    const token = await load(books, ['bank:stage']);
    const res = await call<LinkRepairData & { context: PlanContext }>(
      'POST',
      '/api/v1/cli/bank-matches/ledger-link-repair/stage',
      {
        token,
        body: { bank_account_id: account, counterparty_id: books.cp('a'), as_of: '2026-02-28' },
      },
    );
    expect(res.status).to.equal(200);
    expect(res.body.data.outcome).to.equal('noop');
    expect(res.body.data.context).to.deep.equal({
      bank_account: { id: account, name: 'Main account', currency: 'EUR' },
      ledger_entries: [],
      bank_transactions: [],
      repair_actions: [],
    });
  });

  it('a reversal: the entry it reverses and the transactions of the links it releases', async () => {
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(12_000, { entry_date: '2026-02-03', description: 'Consulting February' });
    const txn = books.txn(account, 12_000, { counterparty_name: 'ACME GmbH', remittance_info: 'RE 2026-17' });
    books.link(txn, entry, 12_000);
    const token = await load(books, ['ledger:stage']);
    const res = await call<ReversalData & { context: PlanContext }>(
      'POST',
      `/api/v1/cli/ledger/entries/${entry}/reverse/stage`,
      { token, body: { reversal_date: '2026-03-01' } },
    );
    expect(res.status).to.equal(201);
    expect(res.body.data.context).to.deep.equal({
      ledger_entries: [entryOf(books, entry)],
      bank_transactions: [txnOf(books, txn)],
    });
    await checkShowAndStore(token, res.body.data);
  });

  it('a reconciliation: the account, its transactions and the entries their links point to', async () => {
    const books = new Books();
    const account = books.account({ name: 'Operating EUR' });
    const inflow = books.linkedTxn(account, 7_000, { booking_date: '2026-02-02', remittance_info: 'INV 7' });
    books.linkedTxn(account, 9_000, { booking_date: '2026-02-03' }); // not on the statement: named nowhere
    const token = await load(books, ['bank:stage']);
    const res = await call<ReconcileData & { context: PlanContext }>(
      'POST',
      '/api/v1/cli/bank-matches/reconcile/stage',
      {
        token,
        body: {
          bank_account_id: account,
          statement: { end_date: '2026-02-02', closing_balance_minor: 7_000, currency: 'EUR' },
          transaction_ids: [inflow.txn],
        },
      },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.context).to.deep.equal({
      bank_account: { id: account, name: 'Operating EUR', currency: 'EUR' },
      ledger_entries: [entryOf(books, inflow.entry)],
      bank_transactions: [txnOf(books, inflow.txn)],
    });
    await checkShowAndStore(token, res.body.data);
  });
});
