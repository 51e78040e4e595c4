// The kept figures of the book reads (docs/reference/book-reads.md "Kept
// figures") on the real stack: after each kind's apply that writes books, and
// after reverts, the worker's refresh leaves no figure stale, and the
// counterparty lists (walked page by page) and the accounts' figures equal
// the same reads computed from scratch over the whole books, as the worker
// computed them before figures were kept; so does the trial balance, from
// kept day totals, as of several days; a reader that comes first computes
// stale figures itself.
import { expect } from 'chai';
import {
  accountFigures,
  counterpartyRows,
  nameOffAccount,
  offAccountCounterparties,
  type CounterpartyRow,
} from '../../shared/domain/book-reads.js';
import {
  BOOK_FIGURES,
  FIGURES_FORMAT,
  FRESHEN_ROUNDS,
  freshenFigures,
  markFigures,
  orgFigureId,
  readFresh,
} from '../../shared/storage/book-figures.js';
import { dayMaster, readDays } from '../../shared/storage/day-totals.js';
import { bump } from '../../shared/storage/figure-docs.js';
import { findAccount, findOrg } from '../../shared/storage/books-read.js';
import {
  accountAmounts,
  namingTransactions,
  readCounterpartyBooks,
  readPostingBooks,
} from '../../shared/storage/books-whole.js';
import { ledgerTransactions } from '../../shared/domain/ledger-postings.js';
import { namedTrialBalance, trialBalance } from '../../shared/domain/trial-balance.js';
import { readChart } from '../../shared/storage/ledger-accounts.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { apply, approve } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';
import { listCounterparties } from '../../worker/jobs/counterparties-list.js';

interface StageData {
  staged_operation_id: string;
}

/** The counterparty list of `account` computed whole from the store (the read before figures were kept). */
async function fromScratch(orgId: string, account: string): Promise<CounterpartyRow[]> {
  const { db } = await stack();
  const [org, bank, books] = await Promise.all([
    findOrg(db, orgId),
    findAccount(db, orgId, account),
    readCounterpartyBooks(db, orgId, account),
  ]);
  const rows = counterpartyRows(
    books.transactions,
    books.entries,
    books.links,
    org?.settlement_accounts ?? [],
    bank!.currency,
  );
  const off = offAccountCounterparties(rows, books.transactions);
  return nameOffAccount(rows, off, await namingTransactions(db, orgId, off));
}

/** The trial balance as of `asOf` computed from every posting of the books. */
async function balanceFromScratch(orgId: string, asOf: string): Promise<unknown> {
  const { db } = await stack();
  const org = await findOrg(db, orgId);
  const books = await readPostingBooks(db, orgId, org?.settlement_accounts ?? []);
  return {
    as_of: asOf,
    items: namedTrialBalance(trialBalance(ledgerTransactions(books), asOf), await readChart(db, orgId)),
  };
}

/** Every row of the list, two per page: the cursor walks every page. */
async function listed(token: string, account: string): Promise<CounterpartyRow[]> {
  const { db } = await stack();
  const currency: unknown = (await db.collection('bank_accounts').findOne({ _id: account as never }))?.currency;
  const rows: CounterpartyRow[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `/api/v1/cli/counterparties?bank_account_id=${account}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res: Answer<{ items: Array<CounterpartyRow & { currency: string }>; next_cursor: string | null }> =
      await call('GET', url, { token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.items.length).to.be.at.most(2);
    // Every row names the account's currency, which its amounts are in.
    for (const { currency: rowCurrency, ...row } of res.body.data.items) {
      expect(rowCurrency, `${account} ${row.counterparty_id}`).to.equal(currency);
      rows.push(row);
    }
    cursor = res.body.data.next_cursor;
  } while (cursor);
  return rows;
}

function fixture() {
  const books = new Books();
  const main = books.account();
  const savings = books.account({ name: 'Savings' });
  // Reconcilable through 2026-02-28 at 107,000 (two fully linked transactions).
  const rec = books.account({ name: 'Reconciled', opening_balance_minor: 100_000 });
  const inflow = books.linkedTxn(rec, 12_000, { booking_date: '2026-02-10', counterparty_id: books.cp('r') });
  const outflow = books.linkedTxn(rec, -5_000, { booking_date: '2026-02-05', counterparty_id: books.cp('r') });
  // Out-of-order links of counterparty a on main: a repair moves and creates links.
  const e1 = books.invoice(6_000, { entry_date: '2026-01-05' });
  const e2 = books.invoice(4_000, { entry_date: '2026-01-20' });
  books.invoice(3_000, { entry_date: '2026-02-01' });
  const t1 = books.txn(main, 6_000, { booking_date: '2026-02-03' });
  const t2 = books.txn(main, 4_000, { booking_date: '2026-02-10' });
  books.txn(main, 1_000, { booking_date: '2026-02-12' });
  books.link(t1, e2, 4_000);
  books.link(t1, e1, 2_000);
  books.link(t2, e1, 4_000);
  // Counterparty b: an unlinked payment on savings and its open invoice, matched by a bank match.
  const eb = books.invoice(2_500, { counterparty_id: books.cp('b') });
  const tb = books.txn(savings, 2_500, { counterparty_id: books.cp('b'), counterparty_name: 'B on savings' });
  // Counterparty c: a paid invoice, reversed later; d: a payable no transaction names; e: a bank fee to book.
  const paid = books.linkedTxn(savings, 900, { counterparty_id: books.cp('c'), counterparty_name: 'C' });
  books.invoice(-600, { counterparty_id: books.cp('d') });
  const fee = books.txn(main, -350, {
    booking_date: '2026-03-02',
    counterparty_id: books.cp('e'),
    counterparty_name: 'The Bank',
  });
  // In dollars: b's open receivable (never added to its euro figures), u's payable that only a dollar account lists.
  const dollars = books.account({ name: 'Dollars', currency: 'USD', ledger_account: '1210' });
  books.invoice(9_000, { counterparty_id: books.cp('b'), currency: 'USD' });
  books.invoice(-1_200, { counterparty_id: books.cp('u'), currency: 'USD' });
  books.txn(dollars, -400, { currency: 'USD', counterparty_id: books.cp('u'), counterparty_name: 'U' });
  return { books, main, savings, rec, dollars, inflow, outflow, eb, tb, paid, fee };
}

const CSV_QUERY =
  '?format=csv&date_column=date&amount_column=amount&counterparty_column=name&remittance_column=text&reference_column=ref';
const CSV = 'date,amount,name,text,ref\n2026-11-03,100.00,Alpha,inv 1,R1\n2026-11-04,-20.00,Beta,fee,R2\n';

describe('book reads: kept figures equal the whole computation after each kind and reverts', function () {
  this.timeout(120_000);
  let f: ReturnType<typeof fixture>;
  let alice: string;
  let bob: string;

  before(async () => {
    const s = await stack();
    f = fixture();
    await s.load(f.books.file);
    alice = await s.token(f.books.orgId, ['bank:stage', 'ledger:stage', 'staged:read', 'books:read'], 'alice');
    bob = await s.token(f.books.orgId, ['staged:read', 'staged:approve', 'staged:apply', 'books:read'], 'bob');
  });

  /** The worker's refresh leaves no master stale after an apply (no reader asks meanwhile). */
  async function refreshedByTheWorker(step: string): Promise<void> {
    const { db } = await stack();
    const deadline = Date.now() + 20_000;
    for (;;) {
      const stale = await db.collection(BOOK_FIGURES).find({ org_id: f.books.orgId, stale: '1' }).toArray();
      const org = await db.collection(BOOK_FIGURES).findOne({ _id: orgFigureId(f.books.orgId) as never });
      if ((stale.length === 0 && org?.stale === '0') || Date.now() > deadline) {
        expect(stale, `${step}: stale figures`).to.deep.equal([]);
        expect(org?.stale, `${step}: the organisation's figures`).to.equal('0');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Every list and account equals its whole computation, once the worker's refresh has left no master stale. */
  async function agrees(step: string): Promise<void> {
    await refreshedByTheWorker(step);
    await listsAgree(step);
  }

  /** Every list, trial balance and account equals its whole computation. */
  async function listsAgree(step: string): Promise<void> {
    const { db } = await stack();
    for (const account of [f.main, f.savings, f.rec, f.dollars])
      expect(await listed(bob, account), `${step}: counterparties of ${account}`).to.deep.equal(
        await fromScratch(f.books.orgId, account),
      );
    for (const asOf of ['2026-01-31', '2026-02-09', '2026-02-28', '2026-03-01', '2026-11-03', '2026-12-31']) {
      const res = await call('GET', `/api/v1/cli/ledger/trial-balance?as_of=${asOf}`, { token: bob });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data, `${step}: trial balance as of ${asOf}`).to.deep.equal(
        await balanceFromScratch(f.books.orgId, asOf),
      );
    }
    const accounts = await call<{
      items: Array<{ id: string; opening_balance_minor: number; book_balance_minor: number; unreconciled: unknown }>;
    }>('GET', '/api/v1/cli/bank-accounts', { token: bob });
    expect(accounts.status).to.equal(200);
    for (const a of accounts.body.data.items)
      expect(
        { book_balance_minor: a.book_balance_minor, unreconciled: a.unreconciled },
        `${step}: ${a.id}`,
      ).to.deep.equal(accountFigures(a.opening_balance_minor, await accountAmounts(db, f.books.orgId, a.id)));
  }

  async function applied(staging: Promise<Answer<StageData>>): Promise<string> {
    const staged = await staging;
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(bob, id)).status).to.equal(200);
    const done = await apply(bob, id);
    expect(done.status, JSON.stringify(done.body)).to.equal(200);
    return id;
  }
  const post = (path: string, body: unknown) => call<StageData>('POST', path, { token: alice, body });

  it('a books import builds them: fresh before any reader', async () => {
    await agrees('loaded');
  });

  it("an account's list counts only entries in its currency: b's dollar receivable is on the dollar account alone", async () => {
    const row = (cp: string, name: string | null, receivable: number, payable: number, unlinked: number) => ({
      counterparty_id: f.books.cp(cp),
      name,
      open_receivable_minor: receivable,
      open_payable_minor: payable,
      unlinked_bank_minor: unlinked,
    });
    expect((await listed(bob, f.savings)).find((r) => r.counterparty_id === f.books.cp('b'))).to.deep.equal(
      row('b', 'B on savings', 2_500, 0, 2_500),
    );
    expect(await listed(bob, f.dollars)).to.deep.equal([
      row('b', 'B on savings', 9_000, 0, 0),
      row('u', 'U', 0, 1_200, 400),
    ]);
    // A job added by an API that sent no currency (docs/operating/backup-and-upgrade.md): the worker reads the account's.
    const { db } = await stack();
    expect(
      await listCounterparties(db, f.books.orgId, { bank_account_id: f.dollars, after: null, limit: 50 }),
    ).to.deep.equal({
      items: [row('b', 'B on savings', 9_000, 0, 0), row('u', 'U', 0, 1_200, 400)].map((r) => ({
        ...r,
        currency: 'USD',
      })),
      last: null,
    });
  });

  it('a bank match, a reconciliation, a link repair, a reversal, a journal entry, a statement import; then reverts', async () => {
    await applied(
      post('/api/v1/cli/bank-matches/match/stage', {
        bank_account_id: f.savings,
        matches: [{ bank_transaction_id: f.tb, ledger_entry_id: f.eb, amount_minor: 2_500 }],
      }),
    );
    await agrees('bank match');
    const reconciliation = await applied(
      post('/api/v1/cli/bank-matches/reconcile/stage', {
        bank_account_id: f.rec,
        statement: { end_date: '2026-02-28', closing_balance_minor: 107_000, currency: 'EUR' },
        transaction_ids: [f.inflow.txn, f.outflow.txn],
      }),
    );
    await agrees('reconciliation');
    const repair = await applied(
      post('/api/v1/cli/bank-matches/ledger-link-repair/stage', {
        bank_account_id: f.main,
        counterparty_id: f.books.cp('a'),
        as_of: '2026-02-28',
      }),
    );
    await agrees('link repair');
    await applied(
      post(`/api/v1/cli/ledger/entries/${f.paid.entry}/reverse/stage`, {
        reversal_date: '2026-03-01',
        reason: 'duplicate invoice',
      }),
    );
    await agrees('reversal');
    // The reversal of c's paid invoice settles it: no open payable, and the payment is unlinked again.
    expect((await listed(bob, f.savings)).find((r) => r.counterparty_id === f.books.cp('c'))).to.deep.equal({
      counterparty_id: f.books.cp('c'),
      name: 'C',
      open_receivable_minor: 0,
      open_payable_minor: 0,
      unlinked_bank_minor: 900,
    });
    await applied(
      post('/api/v1/cli/ledger/entries/stage', bankFeeEntry(f.books.cp('e'), { bank_transaction_id: f.fee })),
    );
    await agrees('journal entry');
    const s = await stack();
    const imported = await applied(
      (async () => {
        const res = await fetch(
          `${s.baseUrl}/api/v1/cli/bank-accounts/${f.savings}/statements/import/stage${CSV_QUERY}`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/octet-stream' },
            body: CSV,
          },
        );
        return { status: res.status, headers: res.headers, body: await res.json() } as Answer<StageData>;
      })(),
    );
    await agrees('statement import');
    for (const [what, id] of [
      ['statement import', imported],
      ['link repair', repair],
      ['reconciliation', reconciliation],
    ] as const) {
      await applied(post(`/api/v1/cli/staged-operations/${id}/revert/stage`, { note: `undo the ${what}` }));
      await agrees(`revert of the ${what}`);
    }
  });

  it('a reader that comes before the worker computes stale figures itself', async () => {
    const { db } = await stack();
    const cp = f.books.cp('a');
    // Figures as no books give, marked stale as an apply leaves them, with no refresh asked of the worker.
    await db
      .collection(BOOK_FIGURES)
      .updateMany(
        { org_id: f.books.orgId, counterparty_id: cp },
        { $set: { open_receivable_minor: 1, unlinked_bank_minor: 1, transactions: 99 } },
      );
    await db.collection(BOOK_FIGURES).updateMany({ org_id: f.books.orgId, kind: 'day' }, { $set: { rows: [] } });
    const days = (await db.collection(BOOK_FIGURES).find({ org_id: f.books.orgId, kind: 'day' }).toArray()).map((d) =>
      String(d.date),
    );
    expect(days.length, 'days with totals').to.be.greaterThan(0);
    expect(
      await markFigures(db, f.books.orgId, {
        counterparties: new Set([cp]),
        accounts: new Set([f.main]),
        days: new Set(days),
      }),
    ).to.equal(true);
    await listsAgree('read while stale');
  });

  it("a reader whose refresh lost its writes to a later refresher's bump freshens again before it reads", async () => {
    const { db } = await stack();
    const org = f.books.orgId;
    const asOf = '2026-12-31';
    await refreshedByTheWorker('before');
    const byDate = <D extends { date: string }>(days: D[]) => [...days].sort((a, b) => a.date.localeCompare(b.date));
    const kept = byDate(await readDays(db, org, asOf));
    expect(
      kept.some((d) => d.rows.length > 0),
      'days with totals',
    ).to.equal(true);
    await db.collection(BOOK_FIGURES).updateMany({ org_id: org, kind: 'day' }, { $set: { rows: [] } });
    const days = kept.map((d) => d.date);
    expect(
      await markFigures(db, org, { counterparties: new Set(), accounts: new Set(), days: new Set(days) }),
    ).to.equal(true);
    // The first round computed and lost: a later refresher bumped the days after it and has not written yet.
    let rounds = 0;
    const freshen = async (): Promise<boolean> => {
      rounds += 1;
      if (rounds > 1) return freshenFigures(db, org);
      await bump(
        db,
        org,
        days.map((d) => dayMaster(org, d)),
      );
      return true;
    };
    expect(byDate(await readFresh(db, org, () => readDays(db, org, asOf), freshen))).to.deep.equal(kept);
    expect(rounds, 'lost, computed, nothing left').to.equal(3);
  });

  it('a reader freshens at most FRESHEN_ROUNDS times while writers keep the figures stale', async () => {
    const { db } = await stack();
    let rounds = 0;
    const always = (): Promise<boolean> => {
      rounds += 1;
      return Promise.resolve(true);
    };
    await readFresh(db, f.books.orgId, () => readDays(db, f.books.orgId, '2026-12-31'), always);
    expect(rounds).to.equal(FRESHEN_ROUNDS);
  });

  it('an organisation without figures (stored before they were kept) gets them from a worker at start', async () => {
    const s = await stack();
    await s.db.collection(BOOK_FIGURES).deleteMany({ org_id: f.books.orgId });
    await s.stopWorker();
    await s.startWorker();
    const deadline = Date.now() + 30_000;
    let org = null;
    while (Date.now() < deadline) {
      org = await s.db.collection(BOOK_FIGURES).findOne({ _id: orgFigureId(f.books.orgId) as never });
      if (org?.stale === '0') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(org?.stale, 'built by the worker at start').to.equal('0');
    await agrees('built at start');
  });

  it('an organisation built in an earlier layout (open amounts summed over currencies) is built again by a worker at start', async () => {
    const s = await stack();
    const figures = s.db.collection(BOOK_FIGURES);
    // The earlier layout: no format on the organisation's document, no open figures per currency.
    await figures.deleteMany({ org_id: f.books.orgId, kind: 'counterparty_open' });
    await figures.updateOne({ _id: orgFigureId(f.books.orgId) as never }, { $unset: { format: '' } });
    await s.stopWorker();
    await s.startWorker();
    const deadline = Date.now() + 30_000;
    let org = null;
    while (Date.now() < deadline) {
      org = await figures.findOne({ _id: orgFigureId(f.books.orgId) as never });
      if (org?.format === FIGURES_FORMAT) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(org?.format, 'built again by the worker at start').to.equal(FIGURES_FORMAT);
    await agrees('built again at start');
  });
});
