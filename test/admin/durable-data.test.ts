// Durable local data (docs/guide/quick-start.md "Durable local data"): the services module with
// a data dir of its own keeps books in FerretDB/PostgreSQL and keys in
// Redis across a stop and a start, and reset empties it. Local servers only
// (what `npm start` uses), started twice: about 10-20 s.
import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Books } from '../helpers/books.js';
import { importBooks } from '../../shared/books/import.js';
import { connectMongo } from '../../shared/storage/mongo.js';
import { resetServices, startServices, stopServices, type ServiceUrls } from '../../scripts/services/lifecycle.js';

const SET = `durable-test-${process.pid}`;

async function countEntries(urls: ServiceUrls, orgId: string): Promise<number> {
  const mongo = await connectMongo(urls.mongoUrl);
  try {
    return await mongo.db.collection('ledger_entries').countDocuments({ org_id: orgId });
  } finally {
    await mongo.client.close();
  }
}

async function withRedis<T>(url: string, fn: (r: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

describe('durable local data (services with a data dir)', function () {
  this.timeout(180_000);
  const parent = mkdtempSync(join(tmpdir(), 'bookstage-durable-'));
  // PostgreSQL runs as the postgres user (as root): it must be able to reach the data dir.
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');

  after(async () => {
    await resetServices(SET, dataDir);
  });

  it('keeps imported books and Redis keys across stop and start; reset empties both', async () => {
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(12_000);
    books.link(books.txn(account, 12_000), entry, 12_000);

    const first = await startServices(SET, { dataDir, useEnv: false });
    const mongo = await connectMongo(first.mongoUrl);
    try {
      expect((await importBooks(mongo.db, books.file)).ok).to.equal(true);
    } finally {
      await mongo.client.close();
    }
    await withRedis(first.redisUrl, async (r) => {
      await r.set('durable-test', 'kept');
    });
    expect(await stopServices(SET)).to.equal(true);
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).to.equal(true);
    expect(existsSync(join(dataDir, 'redis', 'appendonlydir'))).to.equal(true);

    const second = await startServices(SET, { dataDir, useEnv: false });
    expect(await countEntries(second, books.orgId)).to.equal(1);
    expect(await withRedis(second.redisUrl, (r) => r.get('durable-test'))).to.equal('kept');

    await resetServices(SET, dataDir);
    expect(existsSync(dataDir)).to.equal(false);
    const third = await startServices(SET, { dataDir, useEnv: false });
    expect(await countEntries(third, books.orgId)).to.equal(0);
    expect(await withRedis(third.redisUrl, (r) => r.get('durable-test'))).to.equal(null);
  });
});
