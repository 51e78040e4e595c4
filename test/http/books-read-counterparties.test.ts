// The counterparty list (docs/reference/book-reads.md "Computed figures") on
// the real stack: computed by the worker as a read job, it lists the
// counterparties of the account's transactions and of the organisation's open
// posted entries, names one seen only on entries by its latest bank name on any
// account (else null), and leaves out one whose entries are all settled and
// that has no transaction on the account.
import { expect } from 'chai';
import { counterpartyListSchema } from '../../shared/schemas/books-read.js';
import { ajv } from '../../shared/schemas/validator.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

interface Row {
  counterparty_id: string;
  name: string | null;
  open_receivable_minor: number;
  open_payable_minor: number;
  unlinked_bank_minor: number;
}

/**
 * Account A: a's t1 (+3000, 1000 linked to a's e1 of 3000). Account B: c's t2
 * (+500, linked to c's e2 of 2500) and t3 (+100, later, unlinked); d's t4
 * (+800, settling d's e3 of 800). e's e4 is a payable of 600 that no
 * transaction names. f's e5 is reversed and unlinked.
 */
function fixture() {
  const books = new Books();
  const a = books.account();
  const b = books.account({ name: 'Savings' });
  const [cpA, cpC, cpD, cpE, cpF] = ['a', 'c', 'd', 'e', 'f'].map((n) => books.cp(n)) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const e1 = books.invoice(3000, { counterparty_id: cpA });
  const e2 = books.invoice(2500, { counterparty_id: cpC });
  const e3 = books.invoice(800, { counterparty_id: cpD });
  books.invoice(-600, { counterparty_id: cpE });
  books.invoice(900, { counterparty_id: cpF, status: 'reversed' });
  const t1 = books.txn(a, 3000, { booking_date: '2026-02-01', counterparty_id: cpA, counterparty_name: 'A bank' });
  const t2 = books.txn(b, 500, { booking_date: '2026-02-10', counterparty_id: cpC, counterparty_name: 'C on savings' });
  books.txn(b, 100, { booking_date: '2026-02-12', counterparty_id: cpC, counterparty_name: 'C later' });
  const t4 = books.txn(b, 800, { booking_date: '2026-02-11', counterparty_id: cpD, counterparty_name: 'D' });
  books.link(t1, e1, 1000);
  books.link(t2, e2, 500);
  books.link(t4, e3, 800);
  return { books, a, b, cpA, cpC, cpD, cpE, cpF };
}

const byId = (rows: Row[]): Row[] => [...rows].sort((x, y) => (x.counterparty_id < y.counterparty_id ? -1 : 1));

describe('book reads: the counterparty list, computed by the worker', function () {
  this.timeout(60_000);
  let f: ReturnType<typeof fixture>;
  let token: string;

  before(async () => {
    const s = await stack();
    f = fixture();
    await s.load(f.books.file);
    token = await s.token(f.books.orgId, ['books:read']);
  });

  const list = async (account: string): Promise<Row[]> => {
    const res = await call<{ items: Array<Row & { currency: string }> }>(
      'GET',
      `/api/v1/cli/counterparties?bank_account_id=${account}`,
      { token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(ajv.validate(counterpartyListSchema, res.body.data), JSON.stringify(ajv.errors)).to.equal(true);
    // The documented order: by counterparty id.
    expect(res.body.data.items).to.deep.equal(byId(res.body.data.items));
    // Every amount is in the account's currency, which each row names.
    return res.body.data.items.map(({ currency, ...row }) => {
      expect(currency, row.counterparty_id).to.equal('EUR');
      return row;
    });
  };

  it('lists a counterparty seen only in an open entry, named by its latest bank name on another account (else null), with its figures; not one whose entries are all settled', async () => {
    expect(await list(f.a)).to.deep.equal(
      byId([
        {
          counterparty_id: f.cpA,
          name: 'A bank',
          open_receivable_minor: 2000,
          open_payable_minor: 0,
          unlinked_bank_minor: 2000,
        },
        // Only e2 names c here: 2500 − 500 linked from account B; named by B's latest transaction of c.
        {
          counterparty_id: f.cpC,
          name: 'C later',
          open_receivable_minor: 2000,
          open_payable_minor: 0,
          unlinked_bank_minor: 0,
        },
        // No transaction anywhere names e: null.
        {
          counterparty_id: f.cpE,
          name: null,
          open_receivable_minor: 0,
          open_payable_minor: 600,
          unlinked_bank_minor: 0,
        },
      ]),
    );
  });

  it("on the account where the settled counterparty has its transaction, it is listed with that account's figures; a reversed entry names nobody", async () => {
    expect(await list(f.b)).to.deep.equal(
      byId([
        // Only e1 names a here: its name is the latest on any account (A's t1).
        {
          counterparty_id: f.cpA,
          name: 'A bank',
          open_receivable_minor: 2000,
          open_payable_minor: 0,
          unlinked_bank_minor: 0,
        },
        {
          counterparty_id: f.cpC,
          name: 'C later',
          open_receivable_minor: 2000,
          open_payable_minor: 0,
          unlinked_bank_minor: 100,
        },
        { counterparty_id: f.cpD, name: 'D', open_receivable_minor: 0, open_payable_minor: 0, unlinked_bank_minor: 0 },
        {
          counterparty_id: f.cpE,
          name: null,
          open_receivable_minor: 0,
          open_payable_minor: 600,
          unlinked_bank_minor: 0,
        },
      ]),
    );
  });

  it('the list is a read job of the worker; an account of another organisation or none is 404 before any job', async () => {
    const s = await stack();
    const jobs = () =>
      s.workerLogs.filter((l) => l.includes('"read job finished"') && l.includes('"counterparties.list"')).length;
    const before = jobs();
    await list(f.a);
    // The worker logs the job as it answers; its log reaches this process through a pipe, possibly just after the answer.
    for (let i = 0; i < 50 && jobs() === before; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(jobs()).to.be.greaterThan(before);
    const missing = await call('GET', `/api/v1/cli/counterparties?bank_account_id=ba_${f.books.uid}_nowhere`, {
      token,
    });
    expect([missing.status, missing.body.error?.code]).to.deep.equal([404, 'not_found']);
  });
});
