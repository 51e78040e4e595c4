// Bulk writes in commands the store can always finish
// (shared/storage/bounded-bulk-write.ts, docs/indexes.md "Updates per
// command"), on the real store: FerretDB 1.24 keeps a PostgreSQL connection
// for each matched update of one `update` command until the command ends, so
// hundreds of updates of stored documents sent at once, by several writers,
// would leave it waiting for a connection for good.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { bulkWriteBounded } from '../../shared/storage/bounded-bulk-write.js';
import { stack } from '../helpers/stack.js';

interface Counter {
  _id: string;
  org_id: string;
  n: number;
}

describe('store: bulk writes in bounded commands', function () {
  this.timeout(60_000);

  it('three writers each update 300 stored documents at once: every update is made, and the store still answers', async () => {
    const { db } = await stack();
    const collection = db.collection<Counter>('test_bounded_bulk');
    const writers = [0, 1, 2].map(() => randomBytes(5).toString('hex'));
    const idsOf = (org: string) => Array.from({ length: 300 }, (_, i) => `${org}|${i}`);
    for (const org of writers) await collection.insertMany(idsOf(org).map((_id) => ({ _id, org_id: org, n: 0 })));
    const counts = await Promise.all(
      writers.map((org) =>
        bulkWriteBounded(
          collection,
          idsOf(org).map((_id) => ({ updateOne: { filter: { _id, org_id: org }, update: { $inc: { n: 1 } } } })),
          { ordered: false },
        ),
      ),
    );
    expect(counts.map((c) => [c.matchedCount, c.modifiedCount])).to.deep.equal([
      [300, 300],
      [300, 300],
      [300, 300],
    ]);
    for (const org of writers) expect(await collection.countDocuments({ org_id: org, n: 1 }), org).to.equal(300);
  });
});
