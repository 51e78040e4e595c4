// Whether the FerretDB adapter can run on this store (docs/design/architecture.md
// "The store port"): the server must be FerretDB 1.x, and the PostgreSQL
// database at FERRETDB_POSTGRES_URL must hold its tables for this database.
// FerretDB 2.x keeps its documents elsewhere (DocumentDB), so SQL on these
// tables would look up a missing table and fall back on every call. Where
// it cannot run, the driver's adapter does, with the DriverStrategy of the
// server it talks to (driverAdapter).
import type { Db } from 'mongodb';
import pg from 'pg';
import { mongoAdapter } from '../mongo-adapter.js';
import type { StorePort } from '../port.js';
import { ferretDbAdapter } from './adapter.js';
import { ferretDbStrategy } from './driver-strategy.js';
import { ferretTables } from './postgres-gin-indexes.js';
import { openPostgresPages } from './postgres-pages.js';
import { isFerretDb } from './server.js';

/** The driver's adapter for `db`, with FerretDB's strategy when the server is FerretDB (any version), else MongoDB's. */
export async function driverAdapter(db: Db): Promise<StorePort> {
  return (await isFerretDb(db)) ? mongoAdapter(db, ferretDbStrategy) : mongoAdapter(db);
}

/** The accelerated adapter, or why it cannot run here and the driver's adapter that runs instead. */
export type AcceleratedChoice = { adapter: StorePort } | { reason: string; server: string; driver: StorePort };

/**
 * Check the server and the PostgreSQL database, then open the pools. Throws
 * only when the store (MongoDB wire) cannot be asked: the caller asks again.
 */
export async function acceleratedAdapter(db: Db, postgresUrl: string): Promise<AcceleratedChoice> {
  const info = await db.admin().command({ buildInfo: 1 });
  const server =
    typeof info.ferretdbVersion === 'string' ? `FerretDB ${info.ferretdbVersion}` : `MongoDB ${String(info.version)}`;
  if (typeof info.ferretdbVersion !== 'string')
    return { reason: 'the store is not FerretDB', server, driver: mongoAdapter(db) };
  const driver = mongoAdapter(db, ferretDbStrategy);
  if (!/^v?1\./.test(info.ferretdbVersion))
    return { reason: 'only FerretDB 1.x keeps its documents in tables SQL can read', server, driver };
  // FerretDB makes a database's schema with its first collection (ensureIndexes makes them all).
  try {
    await db.createCollection('orgs');
  } catch (err) {
    // 48 NamespaceExists.
    if ((err as { code?: number }).code !== 48) throw err;
  }
  const client = new pg.Client({ connectionString: postgresUrl, application_name: 'bookstage-store-check' });
  try {
    await client.connect();
    const tables = await ferretTables(client, db.databaseName);
    if (!tables.has('orgs'))
      return {
        reason: `PostgreSQL has no FerretDB tables for database ${db.databaseName} (another backend?)`,
        server,
        driver,
      };
  } catch (err) {
    return { reason: `PostgreSQL cannot be read: ${(err as Error).message}`, server, driver };
  } finally {
    await client.end().catch(() => undefined);
  }
  return { adapter: ferretDbAdapter(db, openPostgresPages(postgresUrl)) };
}
