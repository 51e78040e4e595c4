// PostgreSQL btree expression indexes for the book pages on FerretDB 1.24's
// tables (docs/indexes.md "Pages from PostgreSQL's own index").
//
// why: FerretDB 1.24 sorts and applies ranges in Go after reading every row
// its pushed-down equalities select, so a page of an account with 80,000
// transactions read 80,000 documents. The pages are therefore read in SQL
// (shared/storage/ferretdb/postgres-pages.ts), ordered by these indexes: the equality
// fields, then the sort key, then `_id`, each `(_jsonb ->> 'field')` in the
// "C" collation, which orders text by its bytes as MongoDB orders strings.
import pg from 'pg';

/** One page order: equality fields (org_id first), then the sort key; `_id` is always the last column. */
export type PageOrder = readonly string[];

/** The expression of one column, exactly as the index holds it and the page query writes it. */
export function pageColumn(field: string): string {
  return `(_jsonb ->> ${pg.escapeLiteral(field)}) COLLATE "C"`;
}

/** `bstpage_` never collides with FerretDB's names nor the `bstgin_` ones; the hash keeps names distinct in 63 bytes. */
export function pageIndexName(table: string, order: PageOrder): string {
  let hash = 0x811c9dc5;
  for (const ch of `${table}\u0000${order.join('\u0000')}`)
    hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  const readable = `${table.slice(0, 28)}_${order
    .filter((f) => f !== 'org_id')
    .map((f) => f.replace(/[^a-z0-9]/gi, '').slice(0, 8))
    .join('_')
    .slice(0, 18)}`.toLowerCase();
  return `bstpage_${readable}_${hash.toString(16).padStart(8, '0')}`;
}

/** The DDL for one page index; IF NOT EXISTS makes a rerun a no-op. */
export function pageIndexSql(schema: string, table: string, order: PageOrder): string {
  const ident = pg.escapeIdentifier;
  const columns = [...order, '_id'].map((f) => `(${pageColumn(f)})`).join(', ');
  return `CREATE INDEX IF NOT EXISTS ${ident(pageIndexName(table, order))} ON ${ident(schema)}.${ident(table)} (${columns})`;
}
