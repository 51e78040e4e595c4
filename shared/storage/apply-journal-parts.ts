// An apply journal's writes, stored outside its operation (docs/design/
// staged-lifecycle.md "How an operation is stored"): documents of
// `apply_journal_parts`, each holding the JSON of a run of writes, written in
// order before the applying transition that names them. why: a journal is
// megabytes (a 10,000-transaction repair's 23,000 writes), and on the
// operation it passed 16 MiB at some 50,000 transactions, was converted again
// on every read of the operation by FerretDB, and was copied into the
// transition's claim.
//
// The journal id is fresh for each apply start (`<operation id>:<uuid>`), so
// two jobs racing to start the same apply never mix their parts: the one
// whose transition wins is the journal, the other deletes its own. Parts are
// read by `_id` through the store port (in SQL on FerretDB 1.x); a part
// missing, out of place or of another organisation is an error, never a
// shorter journal.
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { JournalWrite } from '../domain/apply-journal.js';
import { collections, type ApplyJournalPartDoc } from './collections.js';
import { storeAdapter } from './store-adapter.js';

/**
 * At most this many characters of JSON per part: at most 3 MiB as UTF-8,
 * under MongoDB's 16 MiB, and small enough that a part escaped into its
 * document stays under the store's insert in SQL (MAX_INSERT_CHARS,
 * docs/indexes.md "Writes in SQL").
 */
export const JOURNAL_PART_CHARS = 1024 * 1024;

/** Where a stored journal is: what the operation's apply state names. */
export interface JournalPartsRef {
  journal_id: string;
  journal_parts: number;
}

export class MissingJournalPartError extends Error {
  constructor(operationId: string, partId: string) {
    super(`staged operation ${operationId}: apply journal part ${partId} is missing`);
    this.name = 'MissingJournalPartError';
  }
}

const partId = (journalId: string, seq: number): string => `${journalId}#${seq}`;

/** The writes cut into runs whose JSON arrays are each at most `maxChars` characters (a larger single write: a run alone). */
export function journalPartTexts(writes: readonly JournalWrite[], maxChars = JOURNAL_PART_CHARS): string[] {
  const texts: string[] = [];
  let run: string[] = [];
  let chars = 2;
  for (const w of writes) {
    const text = JSON.stringify(w);
    if (run.length > 0 && chars + text.length + 1 > maxChars) {
      texts.push(`[${run.join(',')}]`);
      run = [];
      chars = 2;
    }
    run.push(text);
    chars += text.length + 1;
  }
  if (run.length > 0 || texts.length === 0) texts.push(`[${run.join(',')}]`);
  return texts;
}

/** Insert the journal's parts, in order, under a journal id of this write alone. */
export async function storeJournalParts(
  db: Db,
  orgId: string,
  operationId: string,
  writes: readonly JournalWrite[],
): Promise<JournalPartsRef> {
  const journalId = `${operationId}:${randomUUID()}`;
  const docs: ApplyJournalPartDoc[] = journalPartTexts(writes).map((writes_json, seq) => ({
    _id: partId(journalId, seq),
    org_id: orgId,
    staged_operation_id: operationId,
    journal_id: journalId,
    seq,
    writes_json,
  }));
  // Side by side, a statement each where the store inserts in SQL: the parts are written before the transition that
  // names them, in any order (docs/design/staged-lifecycle.md "How an operation is stored"). The others in one command.
  const parts = collections(db).applyJournalParts;
  const store = await storeAdapter(db);
  const left = store.insertsTogether
    ? (
        await Promise.all(
          docs.map(async (doc) =>
            (await store.insertTogether([{ collection: parts.collectionName, docs: [doc] }])) === 'stored' ? null : doc,
          ),
        )
      ).filter((doc) => doc !== null)
    : docs;
  if (left.length > 0) await parts.insertMany(left, { ordered: true });
  return { journal_id: journalId, journal_parts: docs.length };
}

/** The journal's writes, joined back from its parts. */
export async function readJournalParts(
  db: Db,
  orgId: string,
  operationId: string,
  ref: JournalPartsRef,
): Promise<JournalWrite[]> {
  const ids = Array.from({ length: ref.journal_parts }, (_, seq) => partId(ref.journal_id, seq));
  const found = (await (
    await storeAdapter(db)
  ).findByIds(collections(db).applyJournalParts.collectionName, ids, { owner: orgId })) as ApplyJournalPartDoc[];
  const byId = new Map(found.map((p) => [p._id, p]));
  const writes: JournalWrite[] = [];
  for (const [seq, id] of ids.entries()) {
    const part = byId.get(id);
    if (!part || part.org_id !== orgId || part.staged_operation_id !== operationId || part.seq !== seq)
      throw new MissingJournalPartError(operationId, id);
    for (const w of JSON.parse(part.writes_json) as JournalWrite[]) writes.push(w);
  }
  return writes;
}

/** Delete a journal's parts (a start that lost its transition: its journal is never read). */
export async function deleteJournalParts(db: Db, ref: JournalPartsRef): Promise<void> {
  const ids = Array.from({ length: ref.journal_parts }, (_, seq) => partId(ref.journal_id, seq));
  await collections(db).applyJournalParts.deleteMany({ _id: { $in: ids } });
}
