// PostgreSQL GIN expression indexes under FerretDB 1.24's tables
// (docs/indexes.md).
//
// why: FerretDB 1.24.2 (internal/backends/postgresql/query.go) pushes a
// top-level equality down as `_jsonb -> $1 @> $2`, field name and value both
// bind parameters. Only a GIN index on the expression `(_jsonb -> 'field')`
// serves `@>`, and only in a plan made with the parameters inlined (a custom
// plan). So, per database (a PostgreSQL schema, its collections' tables named
// in `_ferretdb_database_metadata`): one such index per equality field, and
// `plan_cache_mode = force_custom_plan` on the PostgreSQL database, because
// FerretDB prepares each statement once per pooled connection and a generic
// plan can never use an expression index.
//
// The same pass creates the book pages' btree indexes
// (shared/storage/ferretdb/postgres-page-indexes.ts), under the same lock.
import pg from 'pg';
import { pageIndexName, pageIndexSql, type PageOrder } from './postgres-page-indexes.js';

export interface GinTarget {
  collection: string;
  fields: string[];
  pages?: readonly PageOrder[];
}

export interface GinReport {
  /** Indexes this call created, as `collection.field` (a page index: `collection.(field,…)`). */
  created: string[];
  /** Indexes that were there already. */
  existing: number;
  /** Whether the PostgreSQL database now plans FerretDB's statements with their parameters inlined. */
  force_custom_plan: boolean;
  /** What could not be done (a missing collection table, no right to ALTER DATABASE). */
  warnings: string[];
}

const METADATA_TABLE = '_ferretdb_database_metadata';

/**
 * The index's name: FerretDB names its own indexes `<table>_<index>_<hash>`
 * (unique across the schema); the `bstgin_` prefix can never collide with
 * them, and the hash keeps long names distinct within PostgreSQL's 63 bytes.
 */
export function ginIndexName(table: string, field: string): string {
  let hash = 0x811c9dc5;
  for (const ch of `${table}\u0000${field}`) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  const readable = `${table.slice(0, 28)}_${field.replace(/[^a-z0-9_]/gi, '_').slice(0, 16)}`.toLowerCase();
  return `bstgin_${readable}_${hash.toString(16).padStart(8, '0')}`;
}

/**
 * The DDL for one index; IF NOT EXISTS makes a rerun a no-op. why
 * `fastupdate = off`: with the pending list on, every lookup also scanned the
 * thousands of entries not yet merged (docs/design/performance.md); off, an insert
 * pays its index update at once and a lookup reads the tree alone.
 */
export function ginIndexSql(schema: string, table: string, field: string): string {
  const ident = pg.escapeIdentifier;
  return `CREATE INDEX IF NOT EXISTS ${ident(ginIndexName(table, field))} ON ${ident(schema)}.${ident(table)} USING gin ((_jsonb -> ${pg.escapeLiteral(field)})) WITH (fastupdate = off)`;
}

/** Collection name → its table, from FerretDB's metadata table of the schema; empty when the schema does not exist yet. */
export async function ferretTables(client: pg.ClientBase, schema: string): Promise<Map<string, string>> {
  const exists = await client.query(
    'SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2',
    [schema, METADATA_TABLE],
  );
  if (exists.rowCount === 0) return new Map();
  const rows = await client.query<{ collection: string; table: string }>(
    `SELECT _jsonb ->> '_id' AS collection, _jsonb ->> 'table' AS table FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(METADATA_TABLE)}`,
  );
  return new Map(rows.rows.map((r) => [r.collection, r.table]));
}

/**
 * Create the missing GIN indexes for `targets` in FerretDB database `schema`
 * (the collections must exist: their tables are created by FerretDB), set
 * plan_cache_mode on the PostgreSQL database, and ANALYZE tables that got a
 * new index so the planner knows the expression's values. Serialized per
 * schema by an advisory lock, so concurrent API and worker start-ups never
 * race on an index name.
 */
export async function ensurePostgresGinIndexes(
  postgresUrl: string,
  schema: string,
  targets: GinTarget[],
): Promise<GinReport> {
  const client = new pg.Client({ connectionString: postgresUrl, application_name: 'bookstage-indexes' });
  await client.connect();
  const report: GinReport = { created: [], existing: 0, force_custom_plan: false, warnings: [] };
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`bookstage gin indexes ${schema}`]);
    report.force_custom_plan = await ensureForceCustomPlan(client, report.warnings);
    const tables = await ferretTables(client, schema);
    const present = new Set(
      (
        await client.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema])
      ).rows.map((r) => r.indexname),
    );
    for (const { collection, fields, pages = [] } of targets) {
      const table = tables.get(collection);
      if (!table) {
        report.warnings.push(`collection ${collection} has no table in schema ${schema} yet`);
        continue;
      }
      let createdHere = false;
      for (const field of fields) {
        if (present.has(ginIndexName(table, field))) {
          report.existing += 1;
          continue;
        }
        await client.query(ginIndexSql(schema, table, field));
        report.created.push(`${collection}.${field}`);
        createdHere = true;
      }
      for (const order of pages) {
        if (present.has(pageIndexName(table, order))) {
          report.existing += 1;
          continue;
        }
        await client.query(pageIndexSql(schema, table, order));
        report.created.push(`${collection}.(${order.join(',')})`);
        createdHere = true;
      }
      if (createdHere) await client.query(`ANALYZE ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`);
    }
  } finally {
    // Ending the session releases the advisory lock too.
    await client.end();
  }
  return report;
}

/**
 * `ALTER DATABASE … SET plan_cache_mode = force_custom_plan` unless already
 * set. Applies to sessions opened afterwards: the services script runs it
 * before FerretDB connects; elsewhere FerretDB's pool picks it up as its
 * connections are renewed. Needs the database's owner; a refusal is a warning.
 */
async function ensureForceCustomPlan(client: pg.ClientBase, warnings: string[]): Promise<boolean> {
  const current = await client.query<{ setconfig: string[] | null; datname: string }>(
    `SELECT d.datname, s.setconfig FROM pg_database d
       LEFT JOIN pg_db_role_setting s ON s.setdatabase = d.oid AND s.setrole = 0
      WHERE d.datname = current_database()`,
  );
  const row = current.rows[0];
  if (row?.setconfig?.includes('plan_cache_mode=force_custom_plan')) return true;
  try {
    await client.query(
      `ALTER DATABASE ${pg.escapeIdentifier(row?.datname ?? '')} SET plan_cache_mode = force_custom_plan`,
    );
    return true;
  } catch (err) {
    warnings.push(`could not set plan_cache_mode on the database: ${(err as Error).message}`);
    return false;
  }
}
