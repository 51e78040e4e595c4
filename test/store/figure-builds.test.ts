// Whole builds of the kept figures that overlap (docs/reference/book-reads.md
// "Kept figures", building them; shared/storage/book-figures.ts beginBuild,
// computeBuild, storeBuild) on the real store: each build's steps are run in
// the order a race can give them, with the books changed between two builds'
// reads, and what is kept in the end must be what one build of the books as
// they are makes; so must it when a writer marks figures while a build is
// under way.
import { expect } from 'chai';
import type { Db } from 'mongodb';
import {
  BOOK_FIGURES,
  beginBuild,
  computeBuild,
  freshenFigures,
  markFigures,
  orgFigureId,
  storeBuild,
} from '../../shared/storage/book-figures.js';
import { insertFigures } from '../../shared/storage/figure-docs.js';
import { Books } from '../helpers/books.js';
import { built, kept } from '../helpers/kept-figures.js';
import { stack } from '../helpers/stack.js';

function fixture() {
  const books = new Books();
  const main = books.account({ opening_balance_minor: 50_000 });
  const e = books.invoice(6_000);
  const t = books.txn(main, 6_000, { booking_date: '2026-02-03' });
  books.link(t, e, 6_000);
  // Counterparty x's only transaction: the change below moves it to y.
  const moved = books.txn(main, 1_500, {
    booking_date: '2026-02-10',
    counterparty_id: books.cp('x'),
    counterparty_name: 'X',
  });
  books.txn(main, -700, { booking_date: '2026-02-11', counterparty_id: books.cp('y'), counterparty_name: 'Y' });
  books.invoice(-900, { counterparty_id: books.cp('d') });
  return { books, main, moved };
}

describe('kept figures: builds that overlap', function () {
  this.timeout(60_000);

  async function loaded() {
    const s = await stack();
    const f = fixture();
    await s.load(f.books.file);
    return { db: s.db, f, orgId: f.books.orgId };
  }

  /** Counterparty x's transaction moves to y with another amount: x leaves the account's list. */
  async function changeBooks(db: Db, f: ReturnType<typeof fixture>): Promise<void> {
    await db
      .collection('bank_transactions')
      .updateOne({ _id: f.moved as never }, { $set: { counterparty_id: f.books.cp('y'), amount_minor: 2_500 } });
  }

  /** Two builds computed, the books changed between their reads; neither stored. */
  async function twoBuilds() {
    const { db, f, orgId } = await loaded();
    const earlier = await beginBuild(db, orgId);
    const earlierDocs = await computeBuild(db, earlier);
    await changeBooks(db, f);
    const later = await beginBuild(db, orgId);
    const laterDocs = await computeBuild(db, later);
    return { db, f, orgId, earlier, earlierDocs, later, laterDocs };
  }

  const orgDoc = (db: Db, orgId: string) => db.collection(BOOK_FIGURES).findOne({ _id: orgFigureId(orgId) as never });

  it('an earlier build that stores last loses, and leaves none of its figures of the older books', async () => {
    const { db, f, orgId, earlier, earlierDocs, later, laterDocs } = await twoBuilds();
    expect(await storeBuild(db, later, laterDocs), 'the later build').to.equal(true);
    expect(await storeBuild(db, earlier, earlierDocs), 'the earlier build').to.equal(false);
    const after = await kept(db, orgId);
    expect(after).to.not.have.property(`row|${orgId}|${f.main}|${f.books.cp('x')}`);
    expect((await orgDoc(db, orgId))?.stale).to.equal('0');
    expect(after).to.deep.equal(await built(db, orgId));
  });

  it("a later build replaces what an earlier one inserted before it, and the earlier one's leftovers go when it loses", async () => {
    const { db, f, orgId, earlier, earlierDocs, later, laterDocs } = await twoBuilds();
    // The earlier build's insert lands before the later one's: every document both make is a duplicate.
    await insertFigures(db, earlierDocs);
    expect(await storeBuild(db, later, laterDocs)).to.equal(true);
    const account = await db.collection(BOOK_FIGURES).findOne({ _id: `ba|${orgId}|${f.main}` as never });
    expect(account, "the account's sums of the later build").to.include({
      build: later.seq,
      amount_sum_minor: 6_000 + 2_500 - 700,
    });
    // Then the earlier build ends: it finds the organisation's document moved on and removes what is its own.
    expect(await storeBuild(db, earlier, earlierDocs)).to.equal(false);
    expect(await kept(db, orgId)).to.deep.equal(await built(db, orgId));
  });

  it('an earlier build whose worker died after its insert leaves nothing once the later build stores', async () => {
    const { db, f, orgId, earlierDocs, later, laterDocs } = await twoBuilds();
    await insertFigures(db, earlierDocs);
    // The earlier build's worker dies here: it never checks whether it won, nor cleans up.
    expect(await storeBuild(db, later, laterDocs)).to.equal(true);
    const after = await kept(db, orgId);
    expect(after).to.not.have.property(`row|${orgId}|${f.main}|${f.books.cp('x')}`);
    expect(after).to.deep.equal(await built(db, orgId));
  });

  it('a writer that marks figures while a build is under way leaves them stale for the next reader', async () => {
    const { db, f, orgId } = await loaded();
    const build = await beginBuild(db, orgId);
    const docs = await computeBuild(db, build);
    // The records change after the build read them; the writer marks what it touched.
    await changeBooks(db, f);
    await markFigures(db, orgId, {
      counterparties: new Set([f.books.cp('x'), f.books.cp('y')]),
      accounts: new Set([f.main]),
      days: new Set(['2026-02-10']),
    });
    expect(await storeBuild(db, build, docs)).to.equal(true);
    const stale = await db.collection(BOOK_FIGURES).find({ org_id: orgId, stale: '1' }).toArray();
    expect(stale.map((d) => String(d._id)).sort()).to.deep.equal(
      [
        `ba|${orgId}|${f.main}`,
        `cp|${orgId}|${f.books.cp('x')}`,
        `cp|${orgId}|${f.books.cp('y')}`,
        `day|${orgId}|2026-02-10`,
      ].sort(),
    );
    expect(await freshenFigures(db, orgId)).to.equal(true);
    const after = await kept(db, orgId);
    // Computed, x's row and master are left empty and off every list, where a build makes none.
    const xRow = `row|${orgId}|${f.main}|${f.books.cp('x')}`;
    const xMaster = `cp|${orgId}|${f.books.cp('x')}`;
    expect(after[xRow]).to.include({ listed_on: '', transactions: 0, unlinked_bank_minor: 0 });
    expect(after[xMaster]).to.include({ listed_on: '', name: null });
    delete after[xRow];
    delete after[xMaster];
    expect(after).to.deep.equal(await built(db, orgId));
  });
});
