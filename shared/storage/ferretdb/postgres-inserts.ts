// Inserts in SQL by the FerretDB adapter (docs/indexes.md "Writes in SQL"):
// documents of several collections written as FerretDB would write them
// (ferret-sjson.ts), in one statement, so all of them are stored or none.
//
// why: a staging's writes through FerretDB were four inserts, one after the
// other (its locks, then its operation, then its event and its answer), each
// a FerretDB command of 1–4 ms on a busy machine; here they are one round
// trip, and a crash between them leaves nothing half-written. FerretDB reads
// the rows as its own: it keeps no state of a collection's documents outside
// its table, and the table's unique indexes (`_id`, a lock's key) are
// PostgreSQL's, so a duplicate is refused here exactly as there.
import pg from 'pg';
import { encodeFerretDocument, InexactDocument } from './ferret-sjson.js';

export type { InsertGroup, InsertOutcome } from '../port.js';
import type { InsertGroup } from '../port.js';

/**
 * Above this much JSON the documents go through FerretDB, as before: there a
 * document past MongoDB's 16 MB is refused, and one stored here past it
 * could not be read back through FerretDB.
 */
export const MAX_INSERT_CHARS = 4 * 1024 * 1024;

/**
 * One statement inserting every group: the last group's INSERT is the
 * statement, the ones before it data-modifying CTEs of it. A single statement is
 * atomic without BEGIN/COMMIT (one round trip, on any pooled connection).
 * Null when a document is not encoded here or the text is too long.
 */
export function insertSql(
  schema: string,
  tables: ReadonlyMap<string, string>,
  groups: readonly InsertGroup[],
): { text: string; values: string[] } | null {
  const values: string[] = [];
  let chars = 0;
  const inserts: string[] = [];
  for (const group of groups) {
    if (group.docs.length === 0) continue;
    const table = tables.get(group.collection);
    if (!table) return null;
    const rows: string[] = [];
    for (const doc of group.docs) {
      let text: string;
      try {
        text = encodeFerretDocument(doc);
      } catch (err) {
        if (err instanceof InexactDocument) return null;
        throw err;
      }
      chars += text.length;
      if (chars > MAX_INSERT_CHARS) return null;
      values.push(text);
      rows.push(`($${values.length}::jsonb)`);
    }
    inserts.push(
      `INSERT INTO ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)} (_jsonb) VALUES ${rows.join(', ')}`,
    );
  }
  const last = inserts.pop();
  if (last === undefined) return null;
  const ctes = inserts.map((insert, i) => `w${i} AS (${insert})`);
  return { text: ctes.length > 0 ? `WITH ${ctes.join(', ')} ${last}` : last, values };
}

/** PostgreSQL's unique_violation. */
export const isPostgresUniqueViolation = (err: unknown): boolean => (err as { code?: string }).code === '23505';
