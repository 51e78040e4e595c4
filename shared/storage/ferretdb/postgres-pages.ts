// The book pages, and the worker's reads, read straight from PostgreSQL
// by the FerretDB adapter (docs/indexes.md "Pages from PostgreSQL's own index",
// "Worker reads in SQL").
//
// why: FerretDB 1.24 pushes only top-level equalities down and sorts, limits
// and applies ranges and `$or` in Go after reading every row they select
// (docs/indexes.md "Why FerretDB needs more"): a page of an account with
// 80,000 transactions read 80,000 documents. Here the same page is one SQL
// query that walks a btree expression index (shared/storage/ferretdb/postgres-page-indexes.ts)
// in the page's order and stops after `limit` rows. Every column is
// `(_jsonb ->> 'field') COLLATE "C"`: byte order, the order MongoDB and
// FerretDB give strings, so pages and cursors are the MongoDB path's exactly.
// The rows are decoded as FerretDB would decode them (shared/storage/ferretdb/ferret-sjson.ts);
// a document with a type that decoder does not give exactly is read by `_id`
// through FerretDB instead.
import type { Db, Document } from 'mongodb';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { decodeFerretDocument, encodeFerretDocument, InexactDocument } from './ferret-sjson.js';
import { ferretTables } from './postgres-gin-indexes.js';
import { pageColumn } from './postgres-page-indexes.js';
import type {
  FieldsQuery,
  HighestQuery,
  IdWrite,
  InsertGroup,
  InsertOutcome,
  LatestQuery,
  PageQuery,
  WhereQuery,
} from '../port.js';
import { idWriteRows, idWritesSql, WRITES_PER_STATEMENT } from './postgres-writes.js';
import { insertSql, isPostgresUniqueViolation } from './postgres-inserts.js';

export type { FieldsQuery, HighestQuery, LatestQuery, PageQuery, WhereQuery } from '../port.js';

/** The SQL of one page on `schema.table`, parameters numbered from $1. */
export function pageSql(schema: string, table: string, q: PageQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const where: string[] = [];
  for (const [field, v] of Object.entries(q.equalities))
    if (v !== undefined) where.push(`${pageColumn(field)} = ${param(v)}`);
  if (q.from !== undefined) where.push(`${pageColumn(q.key)} >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`${pageColumn(q.key)} <= ${param(q.to)}`);
  if (q.after)
    where.push(
      `(${pageColumn(q.key)}, ${pageColumn('_id')}) ${q.direction === 1 ? '>' : '<'} (${param(q.after.key)}, ${param(q.after.id)})`,
    );
  const dir = q.direction === 1 ? 'ASC' : 'DESC';
  const text =
    `SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}` +
    ` WHERE ${where.join(' AND ')} ORDER BY ${pageColumn(q.key)} ${dir}, ${pageColumn('_id')} ${dir} LIMIT ${param(q.limit)}`;
  return { text, values };
}

/**
 * One row per document: `v`, a JSON array of its `_id` and each field's
 * stored value, and `s`, the fields' type schemas (ferret-sjson.ts) as text.
 * Only these are sent, not the whole document; the schemas are not parsed
 * but searched for a type whose value is not the stored JSON as it is
 * (NOT_AS_STORED): parsing and decoding them made the counterparty list at
 * 100,000 entries take 12.5 s against 8.2 s (docs/indexes.md).
 */
function fieldsRow(fields: readonly string[]): string {
  const values = ["_jsonb -> '_id'", ...fields.map((f) => `_jsonb -> ${pg.escapeLiteral(f)}`)];
  const schemas = fields.map((f) => `_jsonb -> '$s' -> 'p' -> ${pg.escapeLiteral(f)}`);
  return `json_build_array(${values.join(', ')}) AS v, json_build_array(${schemas.join(', ')})::text AS s`;
}

/**
 * A type in a schema's text whose value the driver gives as something other
 * than the stored JSON (a date, a long, an ObjectId, …: ferret-sjson.ts).
 * Strings, ints, doubles, booleans, nulls, objects and arrays of them are the
 * stored JSON itself (an object's key order aside, which no rule reads).
 */
const NOT_AS_STORED = /"t": ?"(?!(?:string|int|double|bool|null|object|array)")/;

/** The SQL of `fields` on `schema.table`, parameters numbered from $1. */
export function fieldsSql(schema: string, table: string, q: FieldsQuery): { text: string; values: string[] } {
  const values: string[] = [];
  const where = Object.entries(q.equalities).map(([field, v]) => {
    values.push(q.index === 'page' ? v : JSON.stringify(v));
    return q.index === 'page'
      ? `${pageColumn(field)} = $${values.length}`
      : `(_jsonb -> ${pg.escapeLiteral(field)}) @> $${values.length}::jsonb`;
  });
  if (q.range) {
    values.push(q.range.from, q.range.to);
    where.push(`${pageColumn(q.range.key)} BETWEEN $${values.length - 1} AND $${values.length}`);
  }
  return {
    text: `SELECT ${fieldsRow(q.fields)} FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE ${where.join(' AND ')}`,
    values,
  };
}

/**
 * The SQL of `latest`: for each value, the page index of (equalities, per,
 * key) read backwards for one row (a LATERAL subquery per value).
 */
export function latestSql(schema: string, table: string, q: LatestQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [[...q.values]];
  const where = Object.entries(q.equalities).map(([field, v]) => {
    values.push(v);
    return `${pageColumn(field)} = $${values.length}`;
  });
  where.push(`${pageColumn(q.per)} = k.id`);
  const text =
    `SELECT l.v, l.s FROM unnest($1::text[]) AS k(id) CROSS JOIN LATERAL (SELECT ${fieldsRow(q.fields)}` +
    ` FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE ${where.join(' AND ')}` +
    ` ORDER BY ${pageColumn(q.key)} DESC, ${pageColumn('_id')} DESC LIMIT 1) AS l`;
  return { text, values };
}

/**
 * The SQL of `sequenceMarks`: over the organisation's event reservations
 * (its `org_id` GIN containment), the highest sequence and the highest
 * reserved at or before `cutoff` (ISO text, compared bytewise as FerretDB
 * compares strings). Two numbers instead of every reservation as a document.
 */
export function sequenceMarksSql(
  schema: string,
  table: string,
  orgId: string,
  cutoff: string,
): { text: string; values: string[] } {
  const sequence = "(_jsonb ->> 'sequence')::numeric";
  const text =
    `SELECT coalesce(max(${sequence}), 0)::text AS highest,` +
    ` coalesce(max(${sequence}) FILTER (WHERE (_jsonb ->> 'at') COLLATE "C" <= $2), 0)::text AS final` +
    ` FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE (_jsonb -> 'org_id') @> $1::jsonb`;
  return { text, values: [JSON.stringify(orgId), cutoff] };
}

/** The largest sequence a reservation takes in SQL: its template types `sequence` as FerretDB's int (int32). */
const SQL_SEQUENCE_MAX = 2_147_483_647;

/**
 * The SQL of `reserveSequence`: the organisation's highest reservation read
 * and the next one inserted, in one statement. The row is the reservation
 * event_sequences holds (`{_id: "ORG:N", org_id, sequence: N, at}`),
 * written as FerretDB writes it: the document encoded with N = 0, then its
 * `_id` and `sequence` set to N. A reservation taken meanwhile by another
 * writer inserts nothing (ON CONFLICT on the `_id` index: no error, so
 * nothing logged); the answer says which.
 */
export function reserveSequenceSql(
  schema: string,
  table: string,
  orgId: string,
  at: string,
): { text: string; values: string[] } {
  const t = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
  const template = encodeFerretDocument({ _id: `${orgId}:0`, org_id: orgId, sequence: 0, at });
  const text =
    `WITH next AS (SELECT coalesce(max((_jsonb ->> 'sequence')::numeric), 0)::bigint + 1 AS n FROM ${t} WHERE (_jsonb -> 'org_id') @> $1::jsonb),` +
    ` ins AS (INSERT INTO ${t} (_jsonb) SELECT jsonb_set(jsonb_set($2::jsonb, '{_id}', to_jsonb($3::text || n::text)), '{sequence}', to_jsonb(n))` +
    ` FROM next WHERE n <= ${SQL_SEQUENCE_MAX} ON CONFLICT DO NOTHING RETURNING 1)` +
    ' SELECT n::text AS sequence, (SELECT count(*) FROM ins)::int AS inserted FROM next';
  return { text, values: [JSON.stringify(orgId), template, `${orgId}:`] };
}

/** The fields a `where` with `fields` reads: `_id` first, then the others once each. */
export const whereFields = (fields: readonly string[]): string[] => [...new Set(['_id', ...fields])];

/** A row of `fieldsSql`/`latestSql`: the values (`_id` first) and the fields' schemas as text. */
interface ProjectedRow {
  v: unknown[];
  s: string;
}

/**
 * A row of `whereSql` with fields: `v` and `s` as `fieldsRow` gives them
 * (`_id` first among the fields) and `k`, the stored key order. The row is
 * put back into FerretDB's format here, not in SQL (per-row jsonb building
 * was most of PostgreSQL's time in a big apply's reads), so the one decoder
 * reads it: keys in stored order, a field the document lacks left out, as a
 * MongoDB projection does.
 */
interface WhereRow {
  v: unknown[];
  s: string;
  k: string[] | null;
}

/**
 * A `WhereRow` of scalar values only, each as stored (NOT_AS_STORED), as the
 * document cut down to `fields` in stored key order, without parsing the
 * schemas (unless a null asks whether the field is there); null when a value
 * needs the decoder (an object or array keeps its key order in its schema).
 */
export function plainRow(fields: readonly string[], row: WhereRow): Document | null {
  if (NOT_AS_STORED.test(row.s)) return null;
  for (const v of row.v) if (typeof v === 'object' && v !== null) return null;
  const at = new Map(fields.map((f, i) => [f, i]));
  let schemas: unknown[] | null = null;
  const doc: Document = {};
  for (const key of row.k ?? []) {
    const i = at.get(key);
    if (i === undefined) continue;
    const value = row.v[i];
    // A null is a stored null or an absent field (no schema), which a projection leaves out.
    if (value === null && (schemas ??= JSON.parse(row.s) as unknown[])[i] == null) continue;
    doc[key] = value;
  }
  return doc;
}

/** A `WhereRow` of `fields` as the stored document cut down to them, in FerretDB's format. */
export function ferretRow(fields: readonly string[], row: WhereRow): Record<string, unknown> {
  const schemas = JSON.parse(row.s) as unknown[];
  const at = new Map(fields.map((f, i) => [f, i]));
  const doc: Record<string, unknown> = {};
  const p: Record<string, unknown> = {};
  const keys: string[] = [];
  for (const key of row.k ?? []) {
    const i = at.get(key);
    // No schema: the document lacks the field.
    if (i === undefined || schemas[i] === null || schemas[i] === undefined) continue;
    keys.push(key);
    p[key] = schemas[i];
    doc[key] = row.v[i];
  }
  return { $s: { $k: keys, p }, ...doc };
}

/**
 * A field as FerretDB's index on it names it: `(_jsonb -> 'a')`, and a dotted
 * name's parts in turn, `((_jsonb -> 'a') -> 'b')`, as FerretDB builds an
 * index key `a.b`.
 */
function jsonPath(field: string): string {
  return field.split('.').reduce((expr, part) => `(${expr} -> ${pg.escapeLiteral(part)})`, '_jsonb');
}

/** `(_jsonb -> 'field') = $n::jsonb` per equality, each value appended to `values` as JSON. */
function jsonbEqualities(equalities: Record<string, unknown>, values: unknown[]): string[] {
  return Object.entries(equalities).map(([field, v]) => {
    values.push(JSON.stringify(v));
    return `${jsonPath(field)} = $${values.length}::jsonb`;
  });
}

/**
 * The SQL of `where`: jsonb equalities on `(_jsonb -> 'field')`, the very
 * expressions of FerretDB's own btree indexes (it builds one per declared
 * MongoDB index, `_id` and unique keys included: shared/storage/indexes.ts),
 * and `= ANY` of one jsonb array for the list, which a btree serves as one
 * index scan however long the list is.
 */
export function whereSql(schema: string, table: string, q: WhereQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = jsonbEqualities(q.equalities, values);
  if (q.any) {
    values.push(q.any.values.map((v) => JSON.stringify(v)));
    where.push(`(_jsonb -> ${pg.escapeLiteral(q.any.field)}) = ANY($${values.length}::jsonb[])`);
  }
  // `_id` always: a row the decoder cannot take is read again by it (decoded()).
  const columns =
    q.fields && q.fields.length > 0 ? `${fieldsRow(whereFields(q.fields))}, _jsonb -> '$s' -> '$k' AS k` : '_jsonb';
  const text = `SELECT ${columns} FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return { text, values };
}

/**
 * The SQL of `highest`: jsonb equalities as whereSql's, ordered by the key
 * descending, one row. The expressions are those of FerretDB's btree of the
 * declared index (the equalities, then the key), so PostgreSQL reads its
 * first entry; jsonb orders numbers by value, as MongoDB does.
 */
export function highestSql(schema: string, table: string, q: HighestQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = jsonbEqualities(q.equalities, values);
  const text =
    `SELECT _jsonb FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}` +
    `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${jsonPath(q.key)} DESC LIMIT 1`;
  return { text, values };
}

/**
 * The SQL of `versions`: each listed document's `_id`, `version` and
 * `org_id` as stored, by FerretDB's `_id` btree (`= ANY` of one jsonb array,
 * as whereSql's list).
 */
export function versionsSql(
  schema: string,
  table: string,
  ids: readonly string[],
): { text: string; values: unknown[] } {
  const text =
    "SELECT _jsonb -> '_id' AS id, _jsonb -> 'version' AS version, _jsonb -> 'org_id' AS org" +
    ` FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} WHERE (_jsonb -> '_id') = ANY($1::jsonb[])`;
  return { text, values: [ids.map((id) => JSON.stringify(id))] };
}

/**
 * The SQL of `accountReferences`: the account's transactions whose string
 * `bank_reference` is one of `references`, only `_id`, `version` and the
 * reference, by the btree index (org_id, bank_account_id, bank_reference, _id)
 * (shared/storage/indexes.ts): one index range per reference, never the
 * account's other rows.
 */
export function referencesSql(
  schema: string,
  table: string,
  orgId: string,
  bankAccountId: string,
  references: readonly string[],
): { text: string; values: unknown[] } {
  const text =
    `SELECT ${pageColumn('_id')} AS id, (_jsonb -> 'version') AS version, ${pageColumn('bank_reference')} AS bank_reference` +
    ` FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}` +
    ` WHERE ${pageColumn('org_id')} = $1 AND ${pageColumn('bank_account_id')} = $2 AND ${pageColumn('bank_reference')} = ANY($3::text[])` +
    ` AND jsonb_typeof(_jsonb -> 'bank_reference') = 'string'`;
  return { text, values: [orgId, bankAccountId, [...references]] };
}

/** Statements longer than this are not kept prepared: their text names its values (an insert's rows), so few repeat. */
const NAMED_STATEMENT_MAX_CHARS = 4096;

/**
 * The query as a named prepared statement: parsed and planned once per
 * connection of the prepared pool (force_generic_plan, openPostgresPages).
 * The name is the text's hash, so the same text is the same statement on
 * every connection.
 */
function named(query: { text: string; values: readonly unknown[] }): pg.QueryConfig {
  if (query.text.length > NAMED_STATEMENT_MAX_CHARS) return { text: query.text, values: [...query.values] };
  return {
    name: `bs_${createHash('sha1').update(query.text).digest('hex').slice(0, 20)}`,
    text: query.text,
    values: [...query.values],
  };
}

/**
 * `pool.query`, except that a statement PostgreSQL refused (a unique
 * violation, any ERROR it answered) gives its session back to the pool.
 * why: `pool.query` closes the session on any error, and a new session
 * spends ~10 ms loading the catalog and plans every statement again
 * (~2 ms each on these tables). A staging that meets a held lock is
 * refused by a unique index, so under contention the pools were opening
 * sessions all the time and planning the prepared statements again on
 * most calls (docs/design/performance.md "Round trip"). A
 * statement here is its own transaction, so after an ERROR the session is
 * idle and clean; a lost connection or a FATAL answer still closes it.
 */
async function queryKeepingSession<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  query: pg.QueryConfig,
): Promise<pg.QueryResult<R>> {
  const client = await pool.connect();
  // why a listener: the client emits 'error' when its connection breaks mid-statement, and an unheard 'error' ends the process.
  const ignore = (): void => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    return await client.query<R>(query);
  } catch (err) {
    if (!refusedByServer(err)) broken = err as Error;
    throw err;
  } finally {
    client.removeListener('error', ignore);
    client.release(broken);
  }
}

/** An ERROR answer to one statement, after which the session goes on (not FATAL or PANIC, not a lost connection). */
function refusedByServer(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return false;
  return err.severity === 'ERROR' && !unavailable(err);
}

/** PostgreSQL cannot be reached or is going away: the page falls back to FerretDB, which answers as it can. */
function unavailable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return /Connection terminated|timeout/i.test((err as Error).message ?? '');
  return (
    code.startsWith('08') ||
    code.startsWith('57P') ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code)
  );
}

export interface PostgresPagesStats {
  /** Pages answered from PostgreSQL. */
  served: number;
  /** Pages handed back to the MongoDB path (no table yet, PostgreSQL unreachable). */
  declined: number;
  /** Documents read by `_id` through FerretDB because their types are not decoded here. */
  by_id: number;
  /** Inserts made in SQL (insertTogether); a declined one counts under `declined`. */
  written: number;
}

export class PostgresPages {
  readonly stats: PostgresPagesStats = { served: 0, declined: 0, by_id: 0, written: 0 };
  private readonly tables = new Map<string, Promise<Map<string, string>>>();

  /**
   * `pool` plans each statement with its values, as the database plans
   * FerretDB's; `prepared` keeps one generic plan per statement and
   * connection, for the statements whose generic plans use their index
   * (openPostgresPages).
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly prepared: pg.Pool = pool,
  ) {}

  /**
   * The page's stored documents, in order, as the driver returns them; null
   * when PostgreSQL cannot answer it (the collection has no table yet, the
   * database is unreachable) and the caller reads through FerretDB.
   */
  async page(db: Db, q: PageQuery): Promise<Document[] | null> {
    const rows = await this.query<{ _jsonb: Record<string, unknown> }>(db, q.collection, (schema, table) =>
      pageSql(schema, table, q),
    );
    return rows && this.decoded(db, q.collection, rows);
  }

  /**
   * `q.fields` of every document with the equalities, in no particular order,
   * as the driver's projected find gives them (`_id` only when named); null
   * when PostgreSQL cannot answer. Each value is checked against its stored
   * type (NOT_AS_STORED): a value the driver would give otherwise than as
   * stored (a long, a date, an ObjectId) is never guessed, its document is
   * read by `_id` through FerretDB instead.
   */
  async fields(db: Db, q: FieldsQuery): Promise<Document[] | null> {
    const rows = await this.query<ProjectedRow>(db, q.collection, (schema, table) => fieldsSql(schema, table, q));
    return rows && this.projected(db, q.collection, q.fields, rows);
  }

  /** `latest`'s documents (at most one per value, `q.fields` of each, as `fields` gives them); null when PostgreSQL cannot answer. */
  async latest(db: Db, q: LatestQuery): Promise<Document[] | null> {
    if (q.values.length === 0) return [];
    const rows = await this.query<ProjectedRow>(db, q.collection, (schema, table) => latestSql(schema, table, q));
    return rows && this.projected(db, q.collection, q.fields, rows);
  }

  /**
   * Every document `q` selects, in one SQL query on FerretDB's own btree
   * indexes (whereSql); null when PostgreSQL cannot answer. Through FerretDB
   * the same read converts each document from PostgreSQL's JSON to BSON and
   * back, or, for a list of ids, is one command per id (driver-strategy.ts): a
   * 10,000-transaction repair scope cost FerretDB about 8 CPU-seconds
   * (docs/design/performance.md). Order is the table's.
   */
  async where(db: Db, q: WhereQuery): Promise<Document[] | null> {
    if (q.any && q.any.values.length === 0) return [];
    if (q.fields && q.fields.length > 0) {
      const fields = whereFields(q.fields);
      const rows = await this.query<WhereRow>(
        db,
        q.collection,
        (schema, table) => whereSql(schema, table, q),
        'generic',
      );
      if (!rows) return null;
      const out: Document[] = [];
      const toDecode: Array<{ _jsonb: Record<string, unknown> }> = [];
      for (const r of rows) {
        // fieldsRow's `v` holds `_id` twice when `_id` is among the fields: it is the first of them here.
        const row = { ...r, v: r.v.slice(1) };
        const plain = plainRow(fields, row);
        if (plain) out.push(plain);
        else toDecode.push({ _jsonb: ferretRow(fields, row) });
      }
      for (const d of await this.decoded(db, q.collection, toDecode)) out.push(d);
      return out;
    }
    const rows = await this.query<{ _jsonb: Record<string, unknown> }>(
      db,
      q.collection,
      (schema, table) => whereSql(schema, table, q),
      'generic',
    );
    return rows && this.decoded(db, q.collection, rows);
  }

  /**
   * `highest`'s document (highestSql), decoded as FerretDB gives it; null
   * when there is none, undefined when PostgreSQL cannot answer. why:
   * through FerretDB the same read is a command FerretDB plans afresh and
   * sorts itself; a staging's read of the policy in force was its slowest.
   */
  async highest(db: Db, q: HighestQuery): Promise<Document | null | undefined> {
    const rows = await this.query<{ _jsonb: Record<string, unknown> }>(
      db,
      q.collection,
      (schema, table) => highestSql(schema, table, q),
      'generic',
    );
    if (!rows) return undefined;
    return (await this.decoded(db, q.collection, rows))[0] ?? null;
  }

  /**
   * The organisation's document with this `_id`, read by FerretDB's own `_id`
   * btree, the owner checked here (docs/indexes.md "Reads by id alone"):
   * null when there is none, undefined when PostgreSQL cannot answer.
   */
  async ownedById(db: Db, collection: string, orgId: string, id: string): Promise<Document | null | undefined> {
    const docs = await this.where(db, { collection, equalities: {}, any: { field: '_id', values: [id] } });
    if (!docs) return undefined;
    return docs.find((d) => d.org_id === orgId) ?? null;
  }

  /**
   * The account's transactions carrying one of `references` (a statement
   * import's staleness check, docs/guide/statement-import.md "Apply"): their
   * `_id`, `version` and `bank_reference` only, in one query; null when
   * PostgreSQL cannot answer. Through FerretDB the same read is the whole
   * account (a `$in` would read the whole organisation: driver-strategy.ts).
   */
  async accountReferences(
    db: Db,
    orgId: string,
    bankAccountId: string,
    references: readonly string[],
  ): Promise<Array<{ id: string; version: number; bank_reference: string }> | null> {
    if (references.length === 0) return [];
    const rows = await this.query<{ id: string; version: unknown; bank_reference: string }>(
      db,
      'bank_transactions',
      (schema, table) => referencesSql(schema, table, orgId, bankAccountId, references),
    );
    if (!rows) return null;
    // version is a JSON number in FerretDB's encoding (int32 or int64, both written as numbers).
    return rows.map((r) => ({ id: r.id, version: Number(r.version), bank_reference: r.bank_reference }));
  }

  /**
   * The versions of the organisation's documents among `ids`
   * (versionsSql), by `_id`; null when PostgreSQL cannot answer. why: the
   * projected read (`where` with fields) sends each row's schemas and key
   * order and puts the row back together; an apply's 20,000 preconditions
   * read by version took twice as long that way.
   */
  async versions(
    db: Db,
    collection: string,
    orgId: string,
    ids: readonly string[],
  ): Promise<Map<string, number> | null> {
    const versions = new Map<string, number>();
    if (ids.length === 0) return versions;
    const rows = await this.query<{ id: unknown; version: unknown; org: unknown }>(
      db,
      collection,
      (schema, table) => versionsSql(schema, table, ids),
      'generic',
    );
    if (!rows) return null;
    // A JSON number in FerretDB's encoding, whatever its BSON type (int32, int64, double).
    for (const r of rows)
      if (r.org === orgId && typeof r.id === 'string' && typeof r.version === 'number') versions.set(r.id, r.version);
    return versions;
  }

  /**
   * Reserve the organisation's next event sequence in one statement
   * (reserveSequenceSql): the number, `taken` when another writer reserved
   * it first (read again and retry), null when PostgreSQL cannot answer or
   * the number is past what the statement writes (the caller reserves
   * through the store). Through `sequenceMarks` and an insert it was two
   * round trips, and a writer that lost the race to another got a unique
   * violation (logged by PostgreSQL) and two more.
   */
  async reserveSequence(db: Db, orgId: string, at: string): Promise<number | 'taken' | null> {
    const rows = await this.query<{ sequence: string; inserted: number }>(
      db,
      'event_sequences',
      (schema, table) => reserveSequenceSql(schema, table, orgId, at),
      'generic',
    );
    const row = rows?.[0];
    if (!row) return null;
    const sequence = Number(row.sequence);
    if (row.inserted === 1) return sequence;
    return sequence <= SQL_SEQUENCE_MAX ? 'taken' : null;
  }

  /**
   * The organisation's highest event sequence reserved, and the highest
   * reserved at or before `cutoff` (shared/storage/events.ts), in one
   * aggregate; null when PostgreSQL cannot answer. Through FerretDB the same
   * read returns each of the (up to 80) reservations as a document: about
   * 8 ms against 0.7 (docs/design/performance.md "Round trip"). Prepared,
   * with a generic plan: every staging reserves through it, and planning
   * it with its values cost about a third of its time.
   */
  async sequenceMarks(db: Db, orgId: string, cutoff: string): Promise<{ final: number; highest: number } | null> {
    const rows = await this.query<{ highest: string; final: string }>(
      db,
      'event_sequences',
      (schema, table) => sequenceMarksSql(schema, table, orgId, cutoff),
      'generic',
    );
    if (!rows?.[0]) return null;
    return { final: Number(rows[0].final), highest: Number(rows[0].highest) };
  }

  /**
   * Insert every group's documents in one statement, all or none
   * (postgres-inserts.ts, docs/indexes.md "Writes in SQL"). On `declined`
   * nothing was stored by this call, and the caller writes through the
   * driver; after a connection lost mid-statement the rows may be there,
   * which every caller's driver path meets as duplicates of its own.
   */
  async insertTogether(db: Db, groups: readonly InsertGroup[]): Promise<InsertOutcome> {
    const schema = db.databaseName;
    const tables = new Map<string, string>();
    for (const { collection } of groups) {
      const table = await this.table(schema, collection);
      if (!table) return this.declineWrite();
      tables.set(collection, table);
    }
    const sql = insertSql(schema, tables, groups);
    if (!sql) return this.declineWrite();
    try {
      await queryKeepingSession(this.prepared, named(sql));
    } catch (err) {
      if (isPostgresUniqueViolation(err)) return 'duplicate';
      this.throwUnlessDeclinable(schema, err);
      return this.declineWrite();
    }
    this.stats.written += 1;
    return 'stored';
  }

  /**
   * Make what it can of `writes` (the store port's writeByIds) in SQL
   * (postgres-writes.ts), a statement per WRITES_PER_STATEMENT: the ids it
   * wrote. The others, matched or not, are the caller's to send through
   * FerretDB: a write the encoder leaves, a statement PostgreSQL refused or
   * could not answer (each statement is all or none; after a connection lost
   * mid-statement its writes may be made, and their guards then match nothing
   * there, or, unguarded, make the same again).
   */
  async writeByIds(db: Db, collection: string, orgId: string, writes: readonly IdWrite[]): Promise<Set<string>> {
    const made = new Set<string>();
    const schema = db.databaseName;
    const table = await this.table(schema, collection);
    if (!table) return made;
    for (let i = 0; i < writes.length; i += WRITES_PER_STATEMENT) {
      const { rows } = idWriteRows(writes.slice(i, i + WRITES_PER_STATEMENT));
      if (rows.ids.length === 0) continue;
      try {
        const r = await queryKeepingSession<{ id: string }>(
          this.prepared,
          named({
            text: idWritesSql(schema, table),
            values: [rows.ids, rows.fields, rows.values, rows.docs, JSON.stringify(orgId)],
          }),
        );
        for (const row of r.rows) made.add(row.id);
        this.stats.written += 1;
      } catch (err) {
        if (!(err instanceof pg.DatabaseError) && !unavailable(err)) throw err;
        this.declineWrite();
      }
    }
    return made;
  }

  /**
   * Delete the organisation's documents of `collection` whose `field` is
   * `value` (a string), in one statement; how many, or null when PostgreSQL
   * cannot answer (the caller deletes through FerretDB). why: through FerretDB
   * a filtered delete is a read and then a delete by `_id` for each document:
   * a 10,000-transaction repair's 20,001 plan locks took seconds to release.
   */
  async deleteOwned(db: Db, collection: string, orgId: string, field: string, value: string): Promise<number | null> {
    const rows = await this.query<{ n: number }>(db, collection, (schema, table) => ({
      text:
        `WITH d AS (DELETE FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}` +
        ` WHERE (_jsonb -> 'org_id') @> $1::jsonb AND (_jsonb -> ${pg.escapeLiteral(field)}) @> $2::jsonb RETURNING 1)` +
        ' SELECT count(*)::int AS n FROM d',
      values: [JSON.stringify(orgId), JSON.stringify(value)],
    }));
    return rows ? (rows[0]?.n ?? 0) : null;
  }

  /**
   * ANALYZE the tables of these collections (docs/indexes.md "Statistics
   * after an import"); the names of those analysed (a collection without a
   * table yet is passed over).
   */
  async analyze(db: Db, collections: readonly string[]): Promise<string[]> {
    const schema = db.databaseName;
    const analyzed: string[] = [];
    for (const name of [...new Set(collections)].sort()) {
      const table = await this.table(schema, name);
      if (!table) continue;
      await this.pool.query(`ANALYZE ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`);
      analyzed.push(name);
    }
    return analyzed;
  }

  close(): Promise<void> {
    return Promise.all([this.pool.end(), this.prepared === this.pool ? undefined : this.prepared.end()]).then(
      () => undefined,
    );
  }

  /** An error PostgreSQL's answer may be declined for (the caller goes through FerretDB); any other is thrown. */
  private throwUnlessDeclinable(schema: string, err: unknown): void {
    // 42P01: the table went away (a dropped database); its name is read again next time.
    if ((err as { code?: string }).code === '42P01') this.tables.delete(schema);
    else if (!unavailable(err)) throw err;
  }

  private declineWrite(): 'declined' {
    this.stats.declined += 1;
    return 'declined';
  }

  /**
   * The rows of one query on the collection's table; null (declined) when it
   * has no table or PostgreSQL cannot answer. `plan`: `generic` for the statements whose generic plans use their index
   * (test/store/postgres-indexes.test.ts): prepared, planned once per
   * connection (openPostgresPages). Any other is planned with its values
   * each time, as the database plans FerretDB's: a page's LIMIT can change
   * which plan is best.
   */
  private async query<R>(
    db: Db,
    collection: string,
    sql: (schema: string, table: string) => { text: string; values: unknown[] },
    plan: 'generic' | 'custom' = 'custom',
  ): Promise<R[] | null> {
    const schema = db.databaseName;
    const table = await this.table(schema, collection);
    if (!table) return this.decline();
    let rows: R[];
    try {
      const query = sql(schema, table);
      rows = (
        await queryKeepingSession<R & pg.QueryResultRow>(
          plan === 'generic' ? this.prepared : this.pool,
          plan === 'generic' ? named(query) : query,
        )
      ).rows;
    } catch (err) {
      this.throwUnlessDeclinable(schema, err);
      return this.decline();
    }
    this.stats.served += 1;
    return rows;
  }

  /** Projected rows (fieldsRow) as the driver's projection gives them; one with a value not given as stored is read by `_id` through FerretDB. */
  private async projected(
    db: Db,
    collection: string,
    fields: readonly string[],
    rows: readonly ProjectedRow[],
  ): Promise<Document[]> {
    const projection = Object.fromEntries(fields.map((f) => [f, 1]));
    if (!fields.includes('_id')) projection._id = 0;
    const out: Document[] = [];
    const inexact: string[] = [];
    for (const { v, s } of rows) {
      if (NOT_AS_STORED.test(s)) {
        inexact.push(v[0] as string);
        continue;
      }
      const doc: Document = {};
      let schemas: unknown[] | null = null;
      for (const [i, field] of fields.entries()) {
        const value = v[1 + i];
        // A null is a stored null or an absent field (no schema), which a projection leaves out.
        if (value === null && (schemas ??= JSON.parse(s) as unknown[])[i] === null) continue;
        doc[field] = value;
      }
      out.push(doc);
    }
    for (const id of inexact) {
      this.stats.by_id += 1;
      const doc = await db.collection(collection).findOne({ _id: id as never }, { projection });
      if (doc) out.push(doc);
    }
    return out;
  }

  /** Rows as the driver returns documents; one the decoder cannot give exactly is read by `_id` through FerretDB. */
  private async decoded(
    db: Db,
    collection: string,
    rows: ReadonlyArray<{ _jsonb: Record<string, unknown> }>,
  ): Promise<Document[]> {
    const docs = await Promise.all(
      rows.map(async (row) => {
        try {
          return decodeFerretDocument(row._jsonb);
        } catch (err) {
          if (!(err instanceof InexactDocument)) throw err;
          this.stats.by_id += 1;
          const id = row._jsonb._id as string;
          // Unprojected: the caller reads only the fields it asked for.
          return (await db.collection(collection).findOne({ _id: id as never })) ?? null;
        }
      }),
    );
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

/**
 * The settings of the sessions that run the prepared statements (`where`,
 * the event marks, the inserts): one generic plan per statement, and never
 * a sequential scan where an index can answer.
 * why enable_seqscan off: a generic plan of `_id = ANY($1)` assumes ten ids,
 * and on a table whose statistics say it is a few pages a sequential scan
 * then looks cheaper than ten index probes. The planner does not count that
 * the scan unpacks every row to read its `_id`: an applied 10,000-transaction
 * repair keeps its apply journal in its row (2.7 MB), and each read of any
 * other operation by `_id` unpacked it (25–70 ms, measured in the mixed
 * load: docs/design/performance.md "Where the own CPU per call goes"). Every
 * statement on these sessions has its index (test/store/postgres-indexes.test.ts),
 * and the setting only keeps the planner on it.
 */
export const PREPARED_SESSION = { plan_cache_mode: 'force_generic_plan', enable_seqscan: 'off' } as const;

/** Two pools on the PostgreSQL database behind FerretDB (FERRETDB_POSTGRES_URL), for the reads and writes made in SQL. */
export function openPostgresPages(postgresUrl: string): PostgresPages {
  // why two pools: the database plans every statement afresh with its values
  // (force_custom_plan, postgres-gin-indexes.ts), which FerretDB's statements
  // need, and so it planned ours too: planning was 40% of PostgreSQL's time on
  // them in the mixed load (docs/design/performance.md "Round trip"). The
  // worker reads, the event marks and the inserts name their fields as literals, and their
  // generic plans use the indexes (test/store/postgres-indexes.test.ts): they
  // go to sessions with force_generic_plan as named statements, planned once
  // per connection. A page's LIMIT or a whole-account read can want another
  // plan for other values, so those stay on sessions that plan with them.
  // why no idle time-out: a new PostgreSQL session spends ~10 ms loading the
  // catalog of a table and its indexes on its first statement; six sessions
  // a pool are cheap to keep.
  const options = { connectionString: postgresUrl, application_name: 'bookstage-pages', max: 6, idleTimeoutMillis: 0 };
  const pool = new pg.Pool(options);
  const prepared = new pg.Pool({
    ...options,
    options: Object.entries(PREPARED_SESSION)
      .map(([name, value]) => `-c ${name}=${value}`)
      .join(' '),
  });
  // An idle client's error (PostgreSQL restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  prepared.on('error', () => undefined);
  return new PostgresPages(pool, prepared);
}
