// The book pages read straight from PostgreSQL on the embedded store
// (docs/indexes.md "Pages from PostgreSQL's own index").
//
// why: FerretDB 1.24 pushes only top-level equalities down and sorts, limits
// and applies ranges and `$or` in Go after reading every row they select
// (docs/indexes.md "Why FerretDB needs more"): a page of an account with
// 80,000 transactions read 80,000 documents. Here the same page is one SQL
// query that walks a btree expression index (shared/storage/postgres-page-indexes.ts)
// in the page's order and stops after `limit` rows. Every column is
// `(_jsonb ->> 'field') COLLATE "C"`: byte order, the order MongoDB and
// FerretDB give strings, so pages and cursors are the MongoDB path's exactly.
// The rows are decoded as FerretDB would decode them (shared/storage/ferret-sjson.ts);
// a document with a type that decoder does not give exactly is read by `_id`
// through FerretDB instead.
import type { Db, Document } from 'mongodb';
import pg from 'pg';
import { decodeFerretDocument, InexactDocument } from './ferret-sjson.js';
import { ferretTables } from './postgres-gin-indexes.js';
import { pageColumn } from './postgres-page-indexes.js';

/** One keyset page: the same spec the MongoDB query is built from (shared/storage/books-pages.ts). */
export interface PageQuery {
  collection: string;
  /** Top-level string equalities, `org_id` among them; undefined ones are no filter. */
  equalities: Record<string, string | undefined>;
  /** The sort key; `_id` breaks ties. */
  key: string;
  /** Inclusive bounds on the key (ISO dates compare as strings). */
  from?: string | undefined;
  to?: string | undefined;
  /** Strictly after (ascending) or before (descending) this (key, id). */
  after: { key: string; id: string } | null;
  direction: 1 | -1;
  limit: number;
}

/** The SQL of one page on `schema.table`, parameters numbered from $1. */
export function pageSql(schema: string, table: string, q: PageQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const where: string[] = [];
  for (const [field, v] of Object.entries(q.equalities)) if (v !== undefined) where.push(`${pageColumn(field)} = ${param(v)}`);
  if (q.from !== undefined) where.push(`${pageColumn(q.key)} >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`${pageColumn(q.key)} <= ${param(q.to)}`);
  if (q.after) where.push(`(${pageColumn(q.key)}, ${pageColumn('_id')}) ${q.direction === 1 ? '>' : '<'} (${param(q.after.key)}, ${param(q.after.id)})`);
  const dir = q.direction === 1 ? 'ASC' : 'DESC';
  const text = `SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`
    + ` WHERE ${where.join(' AND ')} ORDER BY ${pageColumn(q.key)} ${dir}, ${pageColumn('_id')} ${dir} LIMIT ${param(q.limit)}`;
  return { text, values };
}

/** The SQL of `byKeys`: an OR of containments on the field's GIN expression, one parameter per value. */
export function keysSql(schema: string, table: string, field: string, values: readonly string[]): { text: string; values: string[] } {
  const column = `(_jsonb -> ${pg.escapeLiteral(field)})`;
  const text = `SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`
    + ` WHERE ${values.map((_, i) => `${column} @> $${i + 1}::jsonb`).join(' OR ')}`;
  return { text, values: values.map((v) => JSON.stringify(v)) };
}

/**
 * The SQL of `accountReferences`: the account's transactions whose string
 * `bank_reference` is one of `references`, only `_id`, `version` and the
 * reference, by the btree index (org_id, bank_account_id, bank_reference, _id)
 * (shared/storage/indexes.ts): one index range per reference, never the
 * account's other rows.
 */
export function referencesSql(schema: string, table: string, orgId: string, bankAccountId: string, references: readonly string[]): { text: string; values: unknown[] } {
  const text = `SELECT ${pageColumn('_id')} AS id, (_jsonb -> 'version') AS version, ${pageColumn('bank_reference')} AS bank_reference`
    + ` FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`
    + ` WHERE ${pageColumn('org_id')} = $1 AND ${pageColumn('bank_account_id')} = $2 AND ${pageColumn('bank_reference')} = ANY($3::text[])`
    + ` AND jsonb_typeof(_jsonb -> 'bank_reference') = 'string'`;
  return { text, values: [orgId, bankAccountId, [...references]] };
}

/** PostgreSQL cannot be reached or is going away: the page falls back to FerretDB, which answers as it can. */
function unavailable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return /Connection terminated|timeout/i.test((err as Error).message ?? '');
  return code.startsWith('08') || code.startsWith('57P') || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code);
}

export interface PostgresPagesStats {
  /** Pages answered from PostgreSQL. */
  served: number;
  /** Pages handed back to the MongoDB path (no table yet, PostgreSQL unreachable). */
  declined: number;
  /** Documents read by `_id` through FerretDB because their types are not decoded here. */
  by_id: number;
}

export class PostgresPages {
  readonly stats: PostgresPagesStats = { served: 0, declined: 0, by_id: 0 };
  private readonly tables = new Map<string, Promise<Map<string, string>>>();

  constructor(private readonly pool: pg.Pool) {}

  /**
   * The page's stored documents, in order, as the driver returns them; null
   * when PostgreSQL cannot answer it (the collection has no table yet, the
   * database is unreachable) and the caller reads through FerretDB.
   */
  async page(db: Db, q: PageQuery): Promise<Document[] | null> {
    const schema = db.databaseName;
    const table = await this.table(schema, q.collection);
    if (!table) return this.decline();
    const { text, values } = pageSql(schema, table, q);
    let rows: Array<{ _jsonb: Record<string, unknown> }>;
    try {
      rows = (await this.pool.query<{ _jsonb: Record<string, unknown> }>({ text, values })).rows;
    } catch (err) {
      // 42P01: the table went away (a dropped database); its name is read again next time.
      if ((err as { code?: string }).code === '42P01') this.tables.delete(schema);
      else if (!unavailable(err)) throw err;
      return this.decline();
    }
    this.stats.served += 1;
    return this.decoded(db, q.collection, rows);
  }

  /**
   * The documents whose top-level string `field` is one of `values`, in one
   * query: an OR of that field's GIN containments, the expression the
   * embedded GIN index holds (shared/storage/postgres-gin-indexes.ts), which
   * PostgreSQL answers as one BitmapOr. Through FerretDB the same read is one
   * equality command per value (where-in.ts), a round trip each: a page of 50
   * transactions asked for its links 50 times. Null when PostgreSQL cannot
   * answer. Order is the table's; callers group by the field.
   */
  async byKeys(db: Db, collection: string, field: string, values: readonly string[]): Promise<Document[] | null> {
    if (values.length === 0) return [];
    const table = await this.table(db.databaseName, collection);
    if (!table) return this.decline();
    let rows: Array<{ _jsonb: Record<string, unknown> }>;
    try {
      rows = (await this.pool.query<{ _jsonb: Record<string, unknown> }>(keysSql(db.databaseName, table, field, values))).rows;
    } catch (err) {
      if ((err as { code?: string }).code === '42P01') this.tables.delete(db.databaseName);
      else if (!unavailable(err)) throw err;
      return this.decline();
    }
    this.stats.served += 1;
    return this.decoded(db, collection, rows);
  }

  /**
   * The account's transactions carrying one of `references` (a statement
   * import's staleness check, docs/guide/statement-import.md "Apply"): their
   * `_id`, `version` and `bank_reference` only, in one query; null when
   * PostgreSQL cannot answer. Through FerretDB the same read is the whole
   * account (a `$in` would read the whole organisation: where-in.ts).
   */
  async accountReferences(db: Db, orgId: string, bankAccountId: string, references: readonly string[]): Promise<Array<{ id: string; version: number; bank_reference: string }> | null> {
    if (references.length === 0) return [];
    const table = await this.table(db.databaseName, 'bank_transactions');
    if (!table) return this.decline();
    let rows: Array<{ id: string; version: unknown; bank_reference: string }>;
    try {
      rows = (await this.pool.query<{ id: string; version: unknown; bank_reference: string }>(referencesSql(db.databaseName, table, orgId, bankAccountId, references))).rows;
    } catch (err) {
      if ((err as { code?: string }).code === '42P01') this.tables.delete(db.databaseName);
      else if (!unavailable(err)) throw err;
      return this.decline();
    }
    this.stats.served += 1;
    // version is a JSON number in FerretDB's encoding (int32 or int64, both written as numbers).
    return rows.map((r) => ({ id: r.id, version: Number(r.version), bank_reference: r.bank_reference }));
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** Rows as the driver returns documents; one the decoder cannot give exactly is read by `_id` through FerretDB. */
  private async decoded(db: Db, collection: string, rows: ReadonlyArray<{ _jsonb: Record<string, unknown> }>): Promise<Document[]> {
    const docs = await Promise.all(rows.map(async (row) => {
      try {
        return decodeFerretDocument(row._jsonb);
      } catch (err) {
        if (!(err instanceof InexactDocument)) throw err;
        this.stats.by_id += 1;
        const id = row._jsonb._id as string;
        return (await db.collection(collection).findOne({ _id: id as never })) ?? null;
      }
    }));
    return docs.filter((d): d is Document => d !== null);
  }

  private decline(): null {
    this.stats.declined += 1;
    return null;
  }

  /** The collection's table in FerretDB's metadata, cached per database; a missing one is looked up again. */
  private async table(schema: string, collection: string): Promise<string | undefined> {
    let known = this.tables.get(schema);
    if (!known) {
      known = this.readTables(schema);
      this.tables.set(schema, known);
    }
    let tables: Map<string, string>;
    try {
      tables = await known;
    } catch (err) {
      this.tables.delete(schema);
      if (unavailable(err)) return undefined;
      throw err;
    }
    if (!tables.has(collection)) this.tables.delete(schema);
    return tables.get(collection);
  }

  private async readTables(schema: string): Promise<Map<string, string>> {
    const client = await this.pool.connect();
    try {
      return await ferretTables(client, schema);
    } finally {
      client.release();
    }
  }
}

/** A pool on the PostgreSQL database behind FerretDB (FERRETDB_POSTGRES_URL), for the book pages. */
export function openPostgresPages(postgresUrl: string): PostgresPages {
  const pool = new pg.Pool({ connectionString: postgresUrl, application_name: 'bookstage-pages', max: 8, idleTimeoutMillis: 30_000 });
  // An idle client's error (PostgreSQL restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return new PostgresPages(pool);
}
