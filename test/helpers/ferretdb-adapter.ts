// The shared stack for a suite about the FerretDB adapter (FerretDB on
// PostgreSQL, docs/indexes.md): skipped, saying why, when the store behind
// MONGO_URL is MongoDB; an error when it is FerretDB without its PostgreSQL URL.
import type { Context } from 'mocha';
import type { Db } from 'mongodb';
import type { FerretDbPort } from '../../shared/storage/ferretdb/adapter.js';
import type { PostgresPagesStats } from '../../shared/storage/ferretdb/postgres-pages.js';
import { chooseStoreAdapter, closeStoreAdapter, storeAdapter } from '../../shared/storage/store-adapter.js';
import { ensureIndexes } from '../../shared/storage/indexes.js';
import { connectMongo, type Mongo } from '../../shared/storage/mongo.js';
import { isFerretDb } from '../../shared/storage/ferretdb/server.js';
import { stack, type Stack } from './stack.js';

/** `mongodbReason`: what stands in for the suite's subject on MongoDB, printed with the skip. */
export async function ferretdbStack(suite: Context, mongodbReason: string): Promise<{ s: Stack; postgresUrl: string }> {
  const s = await stack();
  if (!(await isFerretDb(s.db))) {
    // The reason a whole suite is skipped belongs in the output.
    console.log(`    (skipped: the store behind MONGO_URL is MongoDB; ${mongodbReason})`);
    suite.skip();
  }
  const postgresUrl = s.config.ferretdbPostgresUrl;
  if (!postgresUrl) throw new Error('the store is FerretDB but FERRETDB_POSTGRES_URL is not set (docs/indexes.md)');
  return { s, postgresUrl };
}

/**
 * A database of the suite's own beside the stack's (on FerretDB a PostgreSQL
 * schema of its own), indexed as the service's: no other test's rows or
 * statements land in its tables. Its handle is served by the driver's
 * adapter (ferretdbHandle gives one served by the FerretDB adapter). The
 * caller drops it when done.
 */
export async function ownDatabase(s: Stack, suffix: string, postgresUrl: string): Promise<Mongo> {
  const url = new URL(s.config.mongoUrl);
  url.pathname = `/${s.db.databaseName}_${suffix}`;
  const mongo = await connectMongo(url.toString());
  await ensureIndexes(mongo.db, { postgresUrl });
  return mongo;
}

/**
 * A second handle on `db`'s database, served by the FerretDB adapter of
 * the store port (SQL on FerretDB 1.x's tables: docs/design/architecture.md
 * "The store port"); `db` itself keeps the mongo adapter. The caller
 * closes it (its PostgreSQL pools) when done.
 */
export async function ferretdbHandle(db: Db, postgresUrl: string): Promise<Db> {
  const handle = db.client.db(db.databaseName);
  chooseStoreAdapter(handle, { postgresUrl });
  const adapter = await storeAdapter(handle);
  if (adapter.name !== 'ferretdb') throw new Error(`the FerretDB adapter does not run on ${db.databaseName}`);
  statsByHandle.set(handle, (adapter as FerretDbPort).stats);
  return handle;
}

/**
 * Inside a `describe`: a handle served by the FerretDB adapter for its tests
 * (ferretdbHandle on the shared stack's database, the suite skipped on
 * MongoDB with `mongodbReason`), closed after them. Call the answer in a test.
 */
export function ferretdbHandleForSuite(mongodbReason: string): () => Db {
  let handle: Db | undefined;
  before(async function () {
    const { s, postgresUrl } = await ferretdbStack(this, mongodbReason);
    handle = await ferretdbHandle(s.db, postgresUrl);
  });
  after(async () => {
    if (handle) await closeStoreAdapter(handle);
  });
  return () => {
    if (!handle) throw new Error('the FerretDB handle is made in the suite’s before hook');
    return handle;
  };
}

const statsByHandle = new WeakMap<Db, PostgresPagesStats>();

/** What the SQL of an ferretdbHandle served, declined and wrote so far (a live object). */
export function sqlStats(handle: Db): PostgresPagesStats {
  const stats = statsByHandle.get(handle);
  if (!stats) throw new Error('not a handle from ferretdbHandle');
  return stats;
}

/**
 * Inside a `describe` run once per adapter of the store port: the handle its
 * tests use, given the test's context. The mongo adapter's is the shared
 * stack's database; the FerretDB adapter's a database of the suite's own
 * (`suffix`) served in SQL, dropped after the suite, the test skipped (saying
 * why) where that adapter does not run.
 */
export function handleForAdapter(adapter: 'mongo' | 'ferretdb', suffix: string): (test: Context) => Promise<Db> {
  let own: Mongo | null = null;
  let handle: Db | null = null;
  after(async () => {
    if (handle) await closeStoreAdapter(handle);
    if (own) {
      await own.db.dropDatabase();
      await own.client.close();
    }
  });
  return async (test) => {
    const s = await stack();
    if (adapter === 'mongo') return s.db;
    if (!(await isFerretDb(s.db)) || !s.config.ferretdbPostgresUrl) {
      console.log('    (skipped: the FerretDB adapter runs on FerretDB 1.x with FERRETDB_POSTGRES_URL only)');
      test.skip();
    }
    own ??= await ownDatabase(s, suffix, s.config.ferretdbPostgresUrl);
    handle ??= await ferretdbHandle(own.db, s.config.ferretdbPostgresUrl);
    return handle;
  };
}
