// PostgreSQL's planner statistics after a bulk load (docs/indexes.md
// "Statistics after an import").
//
// why: FerretDB pushes each top-level equality down as `_jsonb -> 'f' @> v`
// and PostgreSQL estimates it from the table's statistics. An organisation
// loaded after the last ANALYZE (autovacuum's runs lag a big import) is
// absent from them, so `org_id @> …` is estimated at one row and the planner
// reads that org's thousands of rows through the org_id index (docs/design/performance.md).
// An import therefore analyses the tables it wrote, at once.
import type { Db } from 'mongodb';
import pg from 'pg';
import { ferretTables } from './postgres-gin-indexes.js';
import { isFerretDb } from './server.js';

const postgresUrlByDb = new WeakMap<Db, string>();

/** The PostgreSQL database behind this connection's FerretDB (ensureIndexes records the one it was given). */
export function rememberPostgresUrl(db: Db, postgresUrl: string): void {
  postgresUrlByDb.set(db, postgresUrl);
}

export interface StatisticsReport {
  /** The collections whose tables were analysed; empty on MongoDB or without a PostgreSQL URL. */
  analyzed: string[];
  /** Why nothing was analysed, when nothing was. */
  skipped?: 'mongodb' | 'no_postgres_url';
}

/**
 * ANALYZE the PostgreSQL tables of `collectionNames` in this FerretDB
 * database, through `postgresUrl` (default: the one ensureIndexes was given
 * for this connection). A no-op on MongoDB, whose planner needs no such step,
 * and on FerretDB without a PostgreSQL URL. Collections without a table yet
 * are passed over.
 */
export async function refreshPlannerStatistics(
  db: Db,
  collectionNames: readonly string[],
  postgresUrl?: string,
): Promise<StatisticsReport> {
  if (!(await isFerretDb(db))) return { analyzed: [], skipped: 'mongodb' };
  const url = postgresUrl ?? postgresUrlByDb.get(db);
  if (!url) return { analyzed: [], skipped: 'no_postgres_url' };
  const client = new pg.Client({ connectionString: url, application_name: 'bookstage-analyze' });
  await client.connect();
  try {
    const schema = db.databaseName;
    const tables = await ferretTables(client, schema);
    const analyzed: string[] = [];
    for (const name of [...new Set(collectionNames)].sort()) {
      const table = tables.get(name);
      if (!table) continue;
      await client.query(`ANALYZE ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`);
      analyzed.push(name);
    }
    return { analyzed };
  } finally {
    await client.end();
  }
}
