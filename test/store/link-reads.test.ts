// The links a refresh of the kept figures reads (shared/storage/link-reads.ts):
// each transaction's and each entry's links are read once however often
// they are asked for.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db } from 'mongodb';
import { LinkReads, type FigureLink } from '../../shared/storage/link-reads.js';
import { ferretdbHandleForSuite, sqlStats } from '../helpers/ferretdb-adapter.js';
import { stack } from '../helpers/stack.js';

const tag = () => randomBytes(5).toString('hex');

/** Links of transactions t0..t2 to entries e0..e2: t0–e0, t0–e1, t1–e1, t2–e2, amounts 100, 200, 300, 400. */
async function storeLinks(db: Db, orgId: string): Promise<FigureLink[]> {
  const pairs: Array<[number, number]> = [
    [0, 0],
    [0, 1],
    [1, 1],
    [2, 2],
  ];
  const links = pairs.map(([t, e], i) => ({
    id: `bl_${orgId}_${i}`,
    bank_transaction_id: `bt_${orgId}_${t}`,
    ledger_entry_id: `le_${orgId}_${e}`,
    amount_minor: 100 * (i + 1),
  }));
  await db
    .collection('bank_links')
    .insertMany(links.map(({ id, ...l }) => ({ _id: id, org_id: orgId, ...l, version: 1 }) as never));
  return links;
}

const byId = (links: readonly FigureLink[]) => [...links].sort((a, b) => a.id.localeCompare(b.id));

describe('link reads of a kept figures refresh', () => {
  it('answers every link of the transactions and of the entries asked for, each list as stored', async () => {
    const { db } = await stack();
    const orgId = `org_${tag()}`;
    const links = await storeLinks(db, orgId);
    const reads = new LinkReads(db, orgId);
    expect(byId(await reads.ofTransactions([`bt_${orgId}_0`, `bt_${orgId}_2`]))).to.deep.equal([
      links[0],
      links[1],
      links[3],
    ]);
    expect(byId(await reads.ofEntries([`le_${orgId}_1`, `le_${orgId}_9`]))).to.deep.equal([links[1], links[2]]);
    // Asked again, with one more: the known lists as first read, the new one read now.
    expect(byId(await reads.ofEntries([`le_${orgId}_1`, `le_${orgId}_0`]))).to.deep.equal([
      links[0],
      links[1],
      links[2],
    ]);
    expect(await reads.ofEntries([])).to.deep.equal([]);
  });

  describe('where the store port reads in SQL (FerretDB 1.x)', function () {
    const ferretDb = ferretdbHandleForSuite('reads are counted in SQL there');

    it('reads each list once however often it is asked for', async () => {
      const handle = ferretDb();
      const orgId = `org_${tag()}`;
      await storeLinks(handle, orgId);
      const reads = new LinkReads(handle, orgId);
      const served = () => sqlStats(handle).served;
      const start = served();
      const entries = [`le_${orgId}_0`, `le_${orgId}_1`];
      // The days and the counterparty figures ask for the same transactions; asked twice, each list is read once.
      const [a, b, c, d] = await Promise.all([
        reads.ofEntries(entries),
        reads.ofEntries([...entries].reverse()),
        reads.ofTransactions([`bt_${orgId}_0`]),
        reads.ofTransactions([`bt_${orgId}_0`]),
      ]);
      expect(served() - start, 'reads').to.equal(2);
      expect(byId(a)).to.deep.equal(byId(b)).and.to.have.length(3);
      expect(byId(c)).to.deep.equal(byId(d)).and.to.have.length(2);
    });
  });
});
