// Staging bank matches through the real API, queue and store
// (docs/reference/http-api.md "Bank matches"): every refusal in its order, the
// plan with what each transaction and entry has open before and after, 1:N
// and N:1, and stage → approve → apply → the links read back.
import { expect } from 'chai';
import type { StageData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve, docs } from '../helpers/staged.js';
import type { BankMatchPlan, MatchPair } from '../../shared/kinds/bank-match/plan.js';
import type { EntryView, TransactionView } from '../../shared/domain/book-reads.js';

const PATH = '/api/v1/cli/bank-matches/match/stage';
type MatchData = StageData<BankMatchPlan> & {
  context: Record<string, unknown>;
  amount_minor: number;
  currency: string;
};

async function setUp(books: Books) {
  const s = await stack();
  await s.load(books.file);
  const who = await actors(books.orgId);
  const reader = await s.token(books.orgId, ['books:read']);
  return { ...who, reader };
}

const stage = (token: string, body: unknown, query = '') => call<MatchData>('POST', `${PATH}${query}`, { token, body });

const pair = (bank_transaction_id: string, ledger_entry_id: string, amount_minor: number): MatchPair => ({
  bank_transaction_id,
  ledger_entry_id,
  amount_minor,
});

describe('POST /bank-matches/match/stage', () => {
  it('1:N — one payment settles two invoices: the plan, stage → approve → apply, links and open amounts read back', async () => {
    const books = new Books();
    const account = books.account();
    const inv1 = books.invoice(12_000, { entry_date: '2026-02-01' });
    const inv2 = books.invoice(18_000, { entry_date: '2026-02-02' });
    const txn = books.txn(account, 30_000, { remittance_info: 'two invoices' });
    const t = await setUp(books);

    const res = await stage(t.alice, {
      bank_account_id: account,
      // Out of order on purpose: the plan lists pairs by (transaction, entry).
      matches: [pair(txn, inv2, 18_000), pair(txn, inv1, 12_000)],
      note: 'March remittance',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.operation).to.equal('bank_match.stage');
    const data = res.body.data;
    expect(data).to.include({ outcome: 'staged', status: 'staged', amount_minor: 30_000, currency: 'EUR' });
    expect(data.plan).to.deep.equal({
      bank_account_id: account,
      currency: 'EUR',
      pairs: [pair(txn, inv1, 12_000), pair(txn, inv2, 18_000)],
      transactions: [
        {
          bank_transaction_id: txn,
          amount_minor: 30_000,
          linked_before_minor: 0,
          open_before_minor: 30_000,
          open_after_minor: 0,
        },
      ],
      entries: [
        {
          ledger_entry_id: inv1,
          open_amount_minor: 12_000,
          linked_before_minor: 0,
          open_before_minor: 12_000,
          open_after_minor: 0,
        },
        {
          ledger_entry_id: inv2,
          open_amount_minor: 18_000,
          linked_before_minor: 0,
          open_before_minor: 18_000,
          open_after_minor: 0,
        },
      ],
      total_minor: 30_000,
      note: 'March remittance',
    });
    // The context names the account, each transaction and each entry with its facts.
    const context = data.context as {
      bank_account: { id: string };
      bank_transactions: Array<{ id: string; remittance_info: string }>;
      ledger_entries: Array<{ id: string; reference: string; open_amount_minor: number }>;
    };
    expect(context.bank_account.id).to.equal(account);
    expect(context.bank_transactions.map((x) => [x.id, x.remittance_info])).to.deep.equal([[txn, 'two invoices']]);
    expect(context.ledger_entries.map((e) => [e.id, e.reference, e.open_amount_minor])).to.deep.equal([
      [inv1, `REF-${inv1}`, 12_000],
      [inv2, `REF-${inv2}`, 18_000],
    ]);
    // Nothing is linked while it waits for review.
    expect(await docs('bank_links', { org_id: books.orgId })).to.have.length(0);

    const id = data.staged_operation_id;
    expect((await approve(t.bob, id)).status).to.equal(200);
    const applied = await apply(t.bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');
    const result = applied.body.data.result as unknown as {
      links: Array<{ action_index: number; link_id: string }>;
      changes: Array<{ action: string; collection: string; id: string }>;
    };
    expect(result.links.map((l) => l.action_index)).to.deep.equal([0, 1]);
    expect(result.changes).to.deep.equal(
      result.links.map((l) => ({ action: 'insert', collection: 'bank_links', id: l.link_id })),
    );

    const txnRead = await call<TransactionView>('GET', `/api/v1/cli/bank-transactions/${txn}`, { token: t.reader });
    expect(txnRead.body.data).to.include({ linked_minor: 30_000, link_state: 'full' });
    // The transaction read lists its links by link id (docs/reference/book-reads.md "Computed figures").
    expect(txnRead.body.data.links).to.deep.equal(
      [
        { link_id: result.links[0]!.link_id, ledger_entry_id: inv1, amount_minor: 12_000 },
        { link_id: result.links[1]!.link_id, ledger_entry_id: inv2, amount_minor: 18_000 },
      ].sort((a, b) => (a.link_id < b.link_id ? -1 : 1)),
    );
    for (const [entry, amount] of [
      [inv1, 12_000],
      [inv2, 18_000],
    ] as const) {
      const read = await call<EntryView>('GET', `/api/v1/cli/ledger/entries/${entry}`, { token: t.reader });
      expect(read.body.data).to.include({ linked_minor: amount, open: false });
    }
  });

  it('N:1 — two payments settle what an invoice leaves open beyond an existing link; applied, the entry is settled', async () => {
    const books = new Books();
    const account = books.account();
    const inv = books.invoice(20_000);
    const earlier = books.txn(account, 5_000);
    books.link(earlier, inv, 5_000);
    const t1 = books.txn(account, 10_000);
    const t2 = books.txn(account, 7_000);
    const t = await setUp(books);

    const res = await stage(t.alice, {
      bank_account_id: account,
      matches: [pair(t1, inv, 10_000), pair(t2, inv, 5_000)],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.entries).to.deep.equal([
      {
        ledger_entry_id: inv,
        open_amount_minor: 20_000,
        linked_before_minor: 5_000,
        open_before_minor: 15_000,
        open_after_minor: 0,
      },
    ]);
    expect(res.body.data.plan.transactions).to.deep.equal([
      {
        bank_transaction_id: t1,
        amount_minor: 10_000,
        linked_before_minor: 0,
        open_before_minor: 10_000,
        open_after_minor: 0,
      },
      {
        bank_transaction_id: t2,
        amount_minor: 7_000,
        linked_before_minor: 0,
        open_before_minor: 7_000,
        open_after_minor: 2_000,
      },
    ]);
    expect(res.body.data.plan.note).to.equal(null);
    expect(res.body.data.amount_minor).to.equal(15_000);

    const id = res.body.data.staged_operation_id;
    expect((await approve(t.bob, id)).status).to.equal(200);
    expect((await apply(t.bob, id)).status).to.equal(200);
    const read = await call<EntryView>('GET', `/api/v1/cli/ledger/entries/${inv}`, { token: t.reader });
    expect(read.body.data).to.include({ linked_minor: 20_000, open: false });
    const partial = await call<TransactionView>('GET', `/api/v1/cli/bank-transactions/${t2}`, { token: t.reader });
    expect(partial.body.data).to.include({ linked_minor: 5_000, link_state: 'partial' });
  });

  it('money out settles a payable', async () => {
    const books = new Books();
    const account = books.account();
    const bill = books.invoice(-4_500);
    const txn = books.txn(account, -4_500);
    const t = await setUp(books);
    const res = await stage(t.alice, { bank_account_id: account, matches: [pair(txn, bill, 4_500)] });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.plan.entries[0]).to.deep.include({ open_amount_minor: -4_500, open_after_minor: 0 });
  });

  it('a dry run shows the plan_hash the staging has, and stages nothing; the same request again answers the pending one', async () => {
    const books = new Books();
    const account = books.account();
    const inv = books.invoice(1_000);
    const txn = books.txn(account, 1_000);
    const t = await setUp(books);
    const body = { bank_account_id: account, matches: [pair(txn, inv, 1_000)] };
    const dry = await stage(t.alice, body, '?dry_run=true');
    expect(dry.status).to.equal(200);
    expect(await docs('staged_operations', { org_id: books.orgId })).to.have.length(0);
    const real = await stage(t.alice, body);
    expect(real.status).to.equal(201);
    expect(real.body.data.plan_hash).to.equal(dry.body.data.plan_hash);
    const again = await stage(t.alice, body);
    expect(again.status).to.equal(200);
    expect(again.body.data.staged_operation_id).to.equal(real.body.data.staged_operation_id);
    expect(again.body.warnings.map((w) => w.code)).to.deep.equal(['already_staged']);
  });

  describe('refusals, in their order', () => {
    /** One account with a receivable, a payable, and money in and out; a second account and another currency. */
    async function world() {
      const books = new Books();
      const account = books.account();
      const other = books.account();
      const usdAccount = books.account({ currency: 'USD' });
      const inv = books.invoice(10_000);
      const inv2 = books.invoice(3_000);
      const bill = books.invoice(-8_000);
      const usdInv = books.invoice(10_000, { currency: 'USD' });
      const moneyIn = books.txn(account, 10_000);
      const moneyIn2 = books.txn(account, 4_000);
      const moneyOut = books.txn(account, -8_000);
      const elsewhere = books.txn(other, 10_000);
      const usdTxn = books.txn(usdAccount, 10_000, { currency: 'USD' });
      const t = await setUp(books);
      return { books, account, usdAccount, inv, inv2, bill, usdInv, moneyIn, moneyIn2, moneyOut, elsewhere, usdTxn, t };
    }

    it('400 duplicate_pair: the same pair twice (before anything else, even an unknown account)', async () => {
      const w = await world();
      const res = await stage(w.t.alice, {
        bank_account_id: 'ba_unknown',
        matches: [pair(w.moneyIn, w.inv, 100), pair(w.moneyIn2, w.inv, 100), pair(w.moneyIn, w.inv, 200)],
      });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.include({
        code: 'duplicate_pair',
        details: { bank_transaction_id: w.moneyIn, ledger_entry_id: w.inv, indexes: [0, 2] },
      });
    });

    it('400 duplicate_pair before the schema: the same pair twice among more than 500 pairs', async () => {
      const w = await world();
      const many = Array.from({ length: 501 }, (_, i) => pair(`bt_x${i}`, w.inv, 1));
      many.push(pair('bt_x7', w.inv, 2));
      const res = await stage(w.t.alice, { bank_account_id: w.account, matches: many });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.include({
        code: 'duplicate_pair',
        details: { bank_transaction_id: 'bt_x7', ledger_entry_id: w.inv, indexes: [7, 501] },
      });
    });

    it('400 validation_failed: more than 500 pairs, or none', async () => {
      const w = await world();
      const many = Array.from({ length: 501 }, (_, i) => pair(`bt_x${i}`, w.inv, 1));
      const res = await stage(w.t.alice, { bank_account_id: w.account, matches: many });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.errors.map((e) => e.pointer)).to.deep.equal(['/matches']);
      const none = await stage(w.t.alice, { bank_account_id: w.account, matches: [] });
      expect(none.status).to.equal(400);
      const zero = await stage(w.t.alice, { bank_account_id: w.account, matches: [pair(w.moneyIn, w.inv, 0)] });
      expect(zero.status).to.equal(400);
    });

    it("404: an unknown or another organisation's account, transaction or entry", async () => {
      const w = await world();
      const theirs = await world();
      const cases: Array<[unknown, string, string]> = [
        [{ bank_account_id: theirs.account, matches: [pair(w.moneyIn, w.inv, 100)] }, 'Bank account', theirs.account],
        [
          { bank_account_id: w.account, matches: [pair(theirs.moneyIn, w.inv, 100)] },
          'Bank transaction',
          theirs.moneyIn,
        ],
        [{ bank_account_id: w.account, matches: [pair(w.moneyIn, theirs.inv, 100)] }, 'Ledger entry', theirs.inv],
        [{ bank_account_id: w.account, matches: [pair(w.moneyIn, 'le_nowhere', 100)] }, 'Ledger entry', 'le_nowhere'],
      ];
      for (const [body, resource, id] of cases) {
        const res = await stage(w.t.alice, body);
        expect(res.status, resource).to.equal(404);
        expect(res.body.error).to.deep.include({ code: 'not_found', details: { resource, id } });
      }
    });

    it('422 transaction_not_on_account', async () => {
      const w = await world();
      const res = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn, w.inv, 100), pair(w.elsewhere, w.inv2, 100)],
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'transaction_not_on_account',
        details: { bank_account_id: w.account, bank_transaction_ids: [w.elsewhere] },
      });
    });

    it('422 currency_mismatch: a transaction and an entry in different currencies', async () => {
      const w = await world();
      const res = await stage(w.t.alice, { bank_account_id: w.usdAccount, matches: [pair(w.usdTxn, w.inv, 100)] });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'currency_mismatch',
        details: {
          bank_transaction_id: w.usdTxn,
          ledger_entry_id: w.inv,
          transaction_currency: 'USD',
          entry_currency: 'EUR',
        },
      });
      expect(res.body.error.message).to.equal(`Bank transaction ${w.usdTxn} is in USD, ledger entry ${w.inv} in EUR.`);
    });

    it('409 entry_is_reversal: an entry reversing another settles it, so no bank money is matched with it', async () => {
      const w = await world();
      const reversed = w.books.invoice(8_000, { status: 'reversed' });
      const reversing = w.books.invoice(-8_000, { reversal_of: reversed });
      w.books.file.ledger_entries.find((e) => e.id === reversed)!.reversed_by = reversing;
      const t = await setUp(w.books);
      const res = await stage(t.alice, { bank_account_id: w.account, matches: [pair(w.moneyOut, reversing, 8_000)] });
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'entry_is_reversal',
        details: { ledger_entry_id: reversing, reversal_of: reversed },
      });
    });

    it('422 direction_mismatch: money in to a payable, money out to a receivable', async () => {
      const w = await world();
      const inToPayable = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn, w.bill, 100)],
      });
      expect(inToPayable.status).to.equal(422);
      expect(inToPayable.body.error).to.deep.include({
        code: 'direction_mismatch',
        details: {
          bank_transaction_id: w.moneyIn,
          ledger_entry_id: w.bill,
          transaction_amount_minor: 10_000,
          entry_open_amount_minor: -8_000,
          entry_status: 'posted',
        },
      });
      const outToReceivable = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyOut, w.inv, 100)],
      });
      expect(outToReceivable.body.error.code).to.equal('direction_mismatch');
    });

    it('422 over_allocated_transaction: existing plus new links above |amount|', async () => {
      const books = new Books();
      const account = books.account();
      const a = books.invoice(10_000);
      const b = books.invoice(10_000);
      const txn = books.txn(account, 10_000);
      books.link(txn, a, 4_000);
      const t = await setUp(books);
      const res = await stage(t.alice, { bank_account_id: account, matches: [pair(txn, b, 6_001)] });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'over_allocated_transaction',
        details: { bank_transaction_id: txn, amount_minor: 10_000, linked_minor: 4_000, requested_minor: 6_001 },
      });
      // Exactly what is left is accepted.
      expect((await stage(t.alice, { bank_account_id: account, matches: [pair(txn, b, 6_000)] })).status).to.equal(201);
    });

    it('422 over_allocated_entry: beyond what its links leave open (summed over the pairs)', async () => {
      const w = await world();
      const res = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn, w.inv2, 2_000), pair(w.moneyIn2, w.inv2, 1_001)],
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.deep.include({
        code: 'over_allocated_entry',
        details: { ledger_entry_id: w.inv2, open_minor: 3_000, requested_minor: 3_001 },
      });
    });

    it('409 already_linked: a pair that has its link', async () => {
      const books = new Books();
      const account = books.account();
      const inv = books.invoice(10_000);
      const txn = books.txn(account, 10_000);
      const link = books.link(txn, inv, 4_000);
      const t = await setUp(books);
      const res = await stage(t.alice, { bank_account_id: account, matches: [pair(txn, inv, 1_000)] });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.deep.include({
        code: 'already_linked',
        details: { bank_transaction_id: txn, ledger_entry_id: inv, link_ids: [link] },
      });
    });

    it('the earlier rule answers: an over-allocated pair that is also linked is over_allocated_transaction', async () => {
      const books = new Books();
      const account = books.account();
      const inv = books.invoice(10_000);
      const txn = books.txn(account, 10_000);
      books.link(txn, inv, 10_000);
      const t = await setUp(books);
      const res = await stage(t.alice, { bank_account_id: account, matches: [pair(txn, inv, 1)] });
      expect(res.body.error.code).to.equal('over_allocated_transaction');
    });

    it('409 pending_operation: another pending match holding a transaction or an entry', async () => {
      const w = await world();
      const first = await stage(w.t.alice, { bank_account_id: w.account, matches: [pair(w.moneyIn, w.inv, 5_000)] });
      expect(first.status).to.equal(201);
      const sameTxn = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn, w.inv2, 1_000)],
      });
      expect(sameTxn.status).to.equal(409);
      expect(sameTxn.body.error).to.deep.include({
        code: 'pending_operation',
        details: { staged_operation_ids: [first.body.data.staged_operation_id] },
      });
      const sameEntry = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn2, w.inv, 1_000)],
      });
      expect(sameEntry.status).to.equal(409);
      expect(sameEntry.body.error.code).to.equal('pending_operation');
      // A refusal before the gate is still that refusal.
      const refusedFirst = await stage(w.t.alice, {
        bank_account_id: w.account,
        matches: [pair(w.moneyIn, w.bill, 1_000)],
      });
      expect(refusedFirst.body.error.code).to.equal('direction_mismatch');
    });

    it('403 without bank:stage', async () => {
      const w = await world();
      const res = await stage(w.t.reader, { bank_account_id: w.account, matches: [pair(w.moneyIn, w.inv, 1)] });
      expect(res.status).to.equal(403);
    });
  });
});
