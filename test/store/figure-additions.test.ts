// Kept figures by addition (docs/reference/book-reads.md "Kept figures";
// shared/storage/figure-additions.ts) on the real store: a journal of new
// transactions adds to the figures it moves and leaves nothing to compute,
// and they are the figures a whole build makes; a figure someone wrote after
// the read, or one inserted while a build may have begun, is left to
// compute, and computing it gives the build's figures again (nothing counted
// twice).
import { expect } from 'chai';
import type { JournalWrite } from '../../shared/domain/apply-journal.js';
import { operationHolder } from '../../shared/storage/version-reservations.js';
import { makeInserts } from '../../shared/storage/apply-writes.js';
import { invalidateFigures, refreshFigures, type TouchedFigures } from '../../shared/storage/book-figures.js';
import { addInsertedTransactions, readBeforeInserts } from '../../shared/storage/figure-additions.js';
import { Books } from '../helpers/books.js';
import { built, kept } from '../helpers/kept-figures.js';
import { stack } from '../helpers/stack.js';

const HOLDER = operationHolder('stg_figures_test');

type InsertWrite = Extract<JournalWrite, { action: 'insert' }>;

function fixture() {
  const books = new Books();
  const main = books.account({ opening_balance_minor: 50_000 });
  const savings = books.account({ name: 'Savings' });
  const e = books.invoice(6_000);
  const t = books.txn(main, 6_000, { booking_date: '2026-02-03' });
  books.link(t, e, 6_000);
  books.txn(main, 1_500, { booking_date: '2026-02-10', counterparty_name: 'Customer A' });
  books.txn(savings, -700, { booking_date: '2026-02-10', counterparty_id: books.cp('b'), counterparty_name: 'B' });
  books.invoice(-900, { counterparty_id: books.cp('d') });
  return { books, main, savings };
}

/** A statement's new transactions as statementImportJournal writes them. */
function statement(f: ReturnType<typeof fixture>, tag: string): InsertWrite[] {
  const insert = (n: number, fields: Record<string, unknown>): InsertWrite => ({
    action: 'insert',
    collection: 'bank_transactions',
    id: `bt_${f.books.uid}_${tag}${n}`,
    doc: {
      bank_account_id: f.main,
      booking_date: '2026-02-10',
      value_date: null,
      amount_minor: 1_000,
      currency: 'EUR',
      counterparty_id: f.books.cp('a'),
      counterparty_name: 'Customer A GmbH',
      counterparty_iban: null,
      remittance_info: '',
      bank_reference: null,
      status: 'unreconciled',
      reconciliation_id: null,
      version: 1,
      ...fields,
    },
  });
  return [
    // On a kept day, a kept row and a kept counterparty, latest by date and id.
    insert(1, {}),
    insert(2, { amount_minor: -250, booking_date: '2026-02-09', counterparty_name: 'older name' }),
    // A counterparty's first row on this account (its master is kept: an open payable).
    insert(3, { amount_minor: -900, counterparty_id: f.books.cp('d'), counterparty_name: 'D' }),
    // A counterparty never seen, on a new day; and a payment without counterparty.
    insert(4, { amount_minor: 333, booking_date: '2026-04-01', counterparty_id: f.books.cp(`new${tag}`) }),
    insert(5, { amount_minor: 47, booking_date: '2026-04-02', counterparty_id: null, counterparty_name: '' }),
  ];
}

const nothing = (t: TouchedFigures) => ({
  counterparties: [...t.counterparties],
  accounts: [...t.accounts],
  days: [...t.days],
});

describe('kept figures by addition', function () {
  this.timeout(60_000);

  async function loaded() {
    const s = await stack();
    const f = fixture();
    await s.load(f.books.file);
    return { db: s.db, f, orgId: f.books.orgId };
  }

  it("adds a statement's transactions where they go, leaves nothing to compute, and gives the whole build's figures", async () => {
    const { db, f, orgId } = await loaded();
    const writes = statement(f, 'x');
    const before = await readBeforeInserts(db, orgId, writes);
    expect(before).to.not.equal(null);
    expect((await makeInserts(db, orgId, writes, HOLDER)).made).to.equal(writes.length);
    const left = await addInsertedTransactions(db, orgId, before!, writes);
    expect(nothing(left)).to.deep.equal({ counterparties: [], accounts: [], days: [] });
    const added = await kept(db, orgId);
    expect(added[`row|${orgId}|${f.main}|${f.books.cp('a')}`]).to.include({
      transactions: 4,
      unlinked_bank_minor: 1_500 + 1_000 + 250,
      name: 'Customer A GmbH',
    });
    expect(added).to.deep.equal(await built(db, orgId));
  });

  it('leaves a figure written since the read to compute: computed then, it counts the new transactions once', async () => {
    const { db, f, orgId } = await loaded();
    const writes = statement(f, 'y');
    const before = await readBeforeInserts(db, orgId, writes);
    await makeInserts(db, orgId, writes, HOLDER);
    // Another writer computes counterparty a and the account after the inserts: it counted them.
    const a = f.books.cp('a');
    await refreshFigures(db, orgId, { counterparties: new Set([a]), accounts: new Set([f.main]), days: new Set() });
    const left = await addInsertedTransactions(db, orgId, before!, writes);
    expect(nothing(left)).to.deep.equal({ counterparties: [a], accounts: [f.main], days: [] });
    await refreshFigures(db, orgId, left);
    expect(await kept(db, orgId)).to.deep.equal(await built(db, orgId));
  });

  it('leaves what it inserts to compute when a build may have begun since the read', async () => {
    const { db, f, orgId } = await loaded();
    const writes = statement(f, 'z');
    const before = await readBeforeInserts(db, orgId, writes);
    await makeInserts(db, orgId, writes, HOLDER);
    await invalidateFigures(db, orgId);
    const left = await addInsertedTransactions(db, orgId, before!, writes);
    expect(nothing(left).days.sort()).to.deep.equal(['2026-02-09', '2026-04-01', '2026-04-02']);
    expect(nothing(left).counterparties.sort()).to.deep.equal([f.books.cp('d'), f.books.cp('newz')].sort());
    // The organisation's figures are stale: the next writer builds them all.
    await refreshFigures(db, orgId, left);
    expect(await kept(db, orgId)).to.deep.equal(await built(db, orgId));
  });

  it('reads nothing for a journal that does more than insert transactions, or before the figures are built', async () => {
    const { db, f, orgId } = await loaded();
    const writes = statement(f, 'w');
    const update: JournalWrite = {
      action: 'update',
      collection: 'bank_transactions',
      id: `bt_${f.books.uid}_x`,
      version: 1,
      set: { status: 'reconciled' },
      before: { status: 'unreconciled' },
    };
    expect(await readBeforeInserts(db, orgId, [...writes, update])).to.equal(null);
    expect(await readBeforeInserts(db, orgId, [])).to.equal(null);
    await invalidateFigures(db, orgId);
    expect(await readBeforeInserts(db, orgId, writes)).to.equal(null);
  });
});
