// The store side of the materialized duplicate overview
// (shared/storage/duplicate-overview.ts, docs/design/duplicate-overview.md), on the
// real store: one computation per inbox version however many readers ask at
// once, an abandoned lease taken over, a live one waited for.
import { expect } from 'chai';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { InboxDocument } from '../../shared/domain/books.js';
import { findDuplicateGroups, pageGroups, type GroupPosition } from '../../shared/domain/duplicate-groups.js';
import { withDocumentDetails } from '../../shared/domain/duplicate-overview.js';
import { collections, type DuplicateOverviewChunkDoc } from '../../shared/storage/collections.js';
import { overviewChunkId, writeOverviewChunks } from '../../shared/storage/duplicate-overview.js';
import { closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import { ferretdbHandle, ferretdbStack, sqlStats } from '../helpers/ferretdb-adapter.js';
import { LEASE_ABANDONED_MS, OverviewWaitTimeout, readDuplicatePage } from '../../worker/jobs/inbox-duplicates-list.js';
import { findGroupableInboxDocuments } from '../../shared/storage/inbox-read.js';
import { bumpInboxVersion, currentInboxVersion } from '../../shared/storage/inbox-version.js';
import { Books } from '../helpers/books.js';
import { duplicateRichInbox } from '../helpers/inbox.js';
import { stack } from '../helpers/stack.js';

async function loadedOrg(n: number, seed: number): Promise<string> {
  const s = await stack();
  const books = new Books();
  duplicateRichInbox(books, n, seed);
  await s.load(books.file);
  return books.orgId;
}

async function freshFirstPage(orgId: string, limit: number, after: GroupPosition | null = null) {
  const db = (await stack()).db;
  // The stored overview's members carry their documents' details (docs/design/duplicate-overview.md).
  const documents = await findGroupableInboxDocuments(db, orgId);
  return pageGroups(withDocumentDetails(findDuplicateGroups(documents as InboxDocument[]), documents), {
    limit,
    after,
  });
}

/** `body` on a connection of its own, told how many `find` commands it has sent to `collection` so far. */
async function countingFinds(collection: string, body: (db: Db, finds: () => number) => Promise<void>): Promise<void> {
  const s = await stack();
  const client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
  await client.connect();
  try {
    let finds = 0;
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === collection) finds += 1;
    });
    await body(client.db(s.db.databaseName), () => finds);
  } finally {
    await client.close();
  }
}

describe('materialized duplicate overview (store)', function () {
  this.timeout(120_000);

  it('computes once per inbox version for concurrent readers, and again after a bump', async () => {
    const { db } = await stack();
    const orgId = await loadedOrg(250, 11);
    const pages = await Promise.all(Array.from({ length: 6 }, () => readDuplicatePage(db, orgId, { limit: 20 })));
    expect(pages.filter((p) => p.computed)).to.have.length(1);
    const version = await currentInboxVersion(db, orgId);
    const fresh = await freshFirstPage(orgId, 20);
    for (const p of pages) {
      expect(p.version).to.equal(version);
      expect({ groups: p.groups, next_after: p.next_after }).to.deep.equal(fresh);
    }
    expect((await readDuplicatePage(db, orgId, { limit: 20 })).computed).to.equal(false);

    const bumped = await bumpInboxVersion(db, orgId);
    expect(bumped).to.not.equal(version);
    const again = await Promise.all(Array.from({ length: 4 }, () => readDuplicatePage(db, orgId, { limit: 20 })));
    expect(again.filter((p) => p.computed)).to.have.length(1);
    expect(again.map((p) => p.version)).to.deep.equal([bumped, bumped, bumped, bumped]);
    // The older version is gone once the newer one is ready.
    const ids = (
      await collections(db)
        .duplicateOverviews.find({ org_id: orgId }, { projection: { _id: 1 } })
        .toArray()
    ).map((o) => o._id);
    expect(ids).to.deep.equal([`${orgId}:${bumped}`]);
  });

  it('readers in the computing process await its computation, then read the store once: no polling while it runs', async () => {
    const orgId = await loadedOrg(800, 17);
    await countingFinds('duplicate_overviews', async (db, overviewReads) => {
      const readers = 8;
      const pages = await Promise.all(
        Array.from({ length: readers }, () => readDuplicatePage(db, orgId, { limit: 20 })),
      );
      expect(pages.filter((p) => p.computed)).to.have.length(1);
      expect(new Set(pages.map((p) => JSON.stringify(p.groups))).size).to.equal(1);
      // Each waiter: the read that met the lease, at most one poll before the computation was registered, the read after it.
      expect(overviewReads(), `${overviewReads()} reads of the overview by ${readers} readers`).to.be.at.most(
        3 * readers,
      );
    });
  });

  it('readers in the computing process page from the chunks it wrote: none is read back from the store', async () => {
    const orgId = await loadedOrg(800, 23);
    await countingFinds('duplicate_overview_chunks', async (db, chunkReads) => {
      const first = await Promise.all(Array.from({ length: 6 }, () => readDuplicatePage(db, orgId, { limit: 20 })));
      expect(first.filter((p) => p.computed)).to.have.length(1);
      // The next page too: it lies in chunks written, not yet read, by this process.
      const next = await readDuplicatePage(db, orgId, { limit: 20, after: first[0]!.next_after });
      expect(chunkReads(), 'chunks read back').to.equal(0);
      const expected = await freshFirstPage(orgId, 20);
      for (const p of first) expect({ groups: p.groups, next_after: p.next_after }).to.deep.equal(expected);
      expect({ groups: next.groups, next_after: next.next_after }).to.deep.equal(
        await freshFirstPage(orgId, 20, first[0]!.next_after),
      );
    });
  });

  it('waits for a live lease until the deadline, and takes over an abandoned one', async () => {
    const { db } = await stack();
    const orgId = await loadedOrg(40, 5);
    const version = await currentInboxVersion(db, orgId);
    const overviews = collections(db).duplicateOverviews;
    await overviews.insertOne({
      _id: `${orgId}:${version}`,
      org_id: orgId,
      version,
      state: 'computing',
      claimed_at: new Date().toISOString(),
    });
    let waited: unknown = null;
    try {
      await readDuplicatePage(db, orgId, { limit: 10 }, new Date(Date.now() + 150));
    } catch (err) {
      waited = err;
    }
    expect(waited).to.be.instanceOf(OverviewWaitTimeout);

    await overviews.updateOne(
      { _id: `${orgId}:${version}` },
      { $set: { claimed_at: new Date(Date.now() - LEASE_ABANDONED_MS - 1000).toISOString() } },
    );
    const page = await readDuplicatePage(db, orgId, { limit: 10 });
    expect(page.computed).to.equal(true);
    expect({ groups: page.groups, next_after: page.next_after }).to.deep.equal(await freshFirstPage(orgId, 10));
    expect((await overviews.findOne({ _id: `${orgId}:${version}` }))?.state).to.equal('ready');
  });
});

describe('materialized duplicate overview: chunks written in SQL (FerretDB adapter)', function () {
  this.timeout(120_000);
  let db: Db;
  let pages: Db;
  const orgId = `org_chunks_sql_${Date.now()}`;
  const chunk = (overview: string, n: number, piecesJson: string): DuplicateOverviewChunkDoc => ({
    _id: overviewChunkId(overview, n),
    org_id: orgId,
    overview_id: overview,
    n,
    pieces_json: piecesJson,
  });

  before(async function () {
    const stack = await ferretdbStack(this, 'the chunks are written through the driver there');
    db = stack.s.db;
    pages = await ferretdbHandle(db, stack.postgresUrl);
    // FerretDB makes a collection's table on its first insert: the first chunks ever go through the driver.
    await writeOverviewChunks(db, [chunk(`${orgId}:seed`, 0, '[]')]);
  });
  after(async () => {
    if (pages) await closeStoreAdapter(pages);
  });

  it("inserts a new overview's chunks in one SQL statement, read back through the driver as written", async () => {
    const overview = `${orgId}:v1`;
    const docs = [
      chunk(overview, 0, '[{"group":"g1","members":["a","b"]}]'),
      chunk(overview, 1, '[{"vendor":"Müller & Söhne \\"GmbH\\""}]'),
    ];
    const written = sqlStats(pages).written;
    await writeOverviewChunks(pages!, docs);
    expect(sqlStats(pages).written).to.equal(written + 1);
    const back = await collections(db)
      .duplicateOverviewChunks.find({ org_id: orgId, overview_id: overview })
      .sort({ n: 1 })
      .toArray();
    expect(back).to.deep.equal(docs);
  });

  it("replaces a dead reader's chunks under the same ids through the driver when the insert is refused", async () => {
    const overview = `${orgId}:v2`;
    await writeOverviewChunks(pages!, [chunk(overview, 0, '["the dead reader\'s"]')]);
    const written = sqlStats(pages).written;
    const fresh = [chunk(overview, 0, '["recomputed 0"]'), chunk(overview, 1, '["recomputed 1"]')];
    await writeOverviewChunks(pages!, fresh);
    // The statement met chunk 0 and stored nothing; the driver replaced 0 and inserted 1.
    expect(sqlStats(pages).written).to.equal(written);
    const back = await collections(db)
      .duplicateOverviewChunks.find({ org_id: orgId, overview_id: overview })
      .sort({ n: 1 })
      .toArray();
    expect(back).to.deep.equal(fresh);
  });
});
