// Updates and deletes by `_id` in SQL by the FerretDB adapter (the store
// port's writeByIds; docs/indexes.md "Writes in SQL"): rows changed as
// FerretDB 1.24 would change them, many in one statement.
//
// why: through FerretDB a guarded update or delete is a read and then a write
// by `_id` per document, and an `update` command keeps a PostgreSQL connection
// per matched document until it ends (docs/indexes.md "Updates per
// command"), so a run of them went in commands of 32. Here a run is one
// statement. A `$set` of top-level fields is the row's JSON merged with the
// new values, and their types merged into its schema (`$s.p`, ferret-sjson.ts);
// a write that would add a field is left to FerretDB (which places new keys),
// as is a value the encoder does not type exactly.
import pg from 'pg';
import type { IdWrite } from '../port.js';
import { encodeFerretDocument, InexactDocument } from './ferret-sjson.js';

/** Writes per statement: its parameters stay a few MB. */
export const WRITES_PER_STATEMENT = 1000;

/** The parameters of one statement: the writes' ids, guards (field and value, null: none) and `$set` fragments (null: a delete). */
export interface IdWriteRows {
  ids: string[];
  fields: Array<string | null>;
  values: Array<string | null>;
  docs: Array<string | null>;
}

/**
 * The statement's rows for `writes`, and the writes it leaves to the driver:
 * a `$set` the encoder cannot type as FerretDB would (InexactDocument).
 */
export function idWriteRows(writes: readonly IdWrite[]): { rows: IdWriteRows; left: IdWrite[] } {
  const rows: IdWriteRows = { ids: [], fields: [], values: [], docs: [] };
  const left: IdWrite[] = [];
  for (const w of writes) {
    let doc: string | null = null;
    if (w.set) {
      try {
        doc = encodeFerretDocument({ _id: w.id, ...w.set });
      } catch (err) {
        if (!(err instanceof InexactDocument)) throw err;
        left.push(w);
        continue;
      }
    }
    rows.ids.push(JSON.stringify(w.id));
    rows.fields.push(w.guard ? w.guard.field : null);
    rows.values.push(w.guard ? JSON.stringify(w.guard.value) : null);
    rows.docs.push(doc);
  }
  return { rows, left };
}

/**
 * One statement making the rows' writes on the organisation's documents, the
 * ids it wrote as its rows (`id`). Each row is found by FerretDB's `_id`
 * btree (`_jsonb -> '_id'`), owned (`org_id`) and holding its guard; an update
 * also needs every field it sets there already (`$s.$k` holds them), so that
 * the row's key order stays FerretDB's.
 */
export function idWritesSql(schema: string, table: string): string {
  const t = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
  const guard =
    "(t._jsonb -> '_id') = v.id AND (t._jsonb -> 'org_id') = $5::jsonb" +
    ' AND (v.field IS NULL OR (t._jsonb -> v.field) = v.value)';
  const merged =
    "(t._jsonb || (v.doc - '$s' - '_id')) || jsonb_build_object('$s', jsonb_build_object(" +
    "'$k', t._jsonb -> '$s' -> '$k', 'p', (t._jsonb -> '$s' -> 'p') || ((v.doc -> '$s' -> 'p') - '_id')))";
  return (
    'WITH v AS (SELECT * FROM unnest($1::jsonb[], $2::text[], $3::jsonb[], $4::jsonb[]) AS v(id, field, value, doc)),' +
    ` u AS (UPDATE ${t} AS t SET _jsonb = ${merged} FROM v WHERE v.doc IS NOT NULL AND (t._jsonb -> '_id') = ANY($1::jsonb[]) AND ${guard}` +
    " AND (t._jsonb -> '$s' -> '$k') @> (v.doc -> '$s' -> '$k') RETURNING t._jsonb ->> '_id' AS id)," +
    ` d AS (DELETE FROM ${t} AS t USING v WHERE v.doc IS NULL AND ${guard} RETURNING t._jsonb ->> '_id' AS id)` +
    ' SELECT id FROM u UNION ALL SELECT id FROM d'
  );
}
