// Reading an organisation's records by a list of ids, the cheapest way for
// the server behind the connection.
//
// why: FerretDB 1.24 pushes only equality filters down to PostgreSQL. A `$in`
// of any length (even one id), a range or an `$or` makes FerretDB read and
// convert every document of the organisation, and matching a long `$in` list
// is linear per document. Measured here (FerretDB 1.24.2 on PostgreSQL 15,
// one org of 20,000 links, reading links by bank_transaction_id):
//   20 ids:     equality 160 ms   one `$in` 630 ms     whole org 1.2 s
//   2,000 ids:  equality 11.4 s   `$in` ×2   1.6 s     whole org 1.3 s
//   20,000 ids: equality 79 s     `$in` ×20  15 s      whole org 1.3 s
// MongoDB serves `$in` from the index, so there it is chunked `$in` always.
import type { Collection, Db, Document, Filter, WithId } from 'mongodb';

/** MongoDB answers `$in` from the index; lists are still sent in chunks of this many ids. */
export const IN_CHUNK_SIZE = 1000;
const IN_CHUNK_CONCURRENCY = 4;

/**
 * Run `read` over `ids` in chunks of IN_CHUNK_SIZE (a few chunks at a time)
 * and concatenate the answers, in no particular order.
 */
export async function readInChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK_SIZE) chunks.push(ids.slice(i, i + IN_CHUNK_SIZE));
  const out: T[] = [];
  for (let i = 0; i < chunks.length; i += IN_CHUNK_CONCURRENCY) {
    const answers = await Promise.all(chunks.slice(i, i + IN_CHUNK_CONCURRENCY).map(read));
    for (const answer of answers) for (const item of answer) out.push(item);
  }
  return out;
}

/** On FerretDB, up to this many ids are read by one equality query each. */
export const EQUALITY_QUERY_MAX = 100;
const EQUALITY_CONCURRENCY = 16;

/**
 * The org's documents whose `field` is one of `ids`, in no particular order.
 * MongoDB: `$in` in chunks of IN_CHUNK_SIZE. FerretDB: one equality query per
 * id up to EQUALITY_QUERY_MAX ids, else one `$in` up to IN_CHUNK_SIZE ids,
 * else one pass over the org's documents (equality on org_id) filtered here:
 * never more than one full read of the org per call.
 */
export async function findWhereIn<D extends Document & { org_id: string }>(
  db: Db,
  collection: Collection<D>,
  orgId: string | null,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  // orgId null: ids across every organisation (the importer's check that ids are not taken elsewhere).
  const owner = orgId === null ? {} : { org_id: orgId };
  const where = (condition: unknown) =>
    collection.find({ ...owner, [field]: condition } as Filter<D>, { projection }).toArray();
  if (!(await isFerretDb(db))) return readInChunks(ids, (chunk) => where({ $in: chunk }));
  if (ids.length <= EQUALITY_QUERY_MAX) return readEach(ids, (id) => where(id));
  if (ids.length <= IN_CHUNK_SIZE) return where({ $in: [...ids] });
  const wanted = new Set(ids);
  const out: WithId<D>[] = [];
  for await (const doc of collection.find(owner as Filter<D>, { projection })) {
    if (wanted.has((doc as Record<string, unknown>)[field] as string)) out.push(doc);
  }
  return out;
}

/** `read` once per value, EQUALITY_CONCURRENCY at a time; the answers concatenated in no particular order. */
export async function readEach<T>(values: readonly string[], read: (value: string) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < values.length) {
      const value = values[next]!;
      next += 1;
      for (const item of await read(value)) out.push(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(EQUALITY_CONCURRENCY, values.length) }, lane));
  return out;
}

const ferretDbByDb = new WeakMap<Db, Promise<boolean>>();

/** FerretDB names itself in buildInfo (`ferretdbVersion`); asked once per connection. */
export function isFerretDb(db: Db): Promise<boolean> {
  let known = ferretDbByDb.get(db);
  if (!known) {
    known = db
      .admin()
      .command({ buildInfo: 1 })
      .then(
        (info) => typeof info.ferretdbVersion === 'string',
        (err: unknown) => {
          ferretDbByDb.delete(db);
          throw err;
        },
      );
    ferretDbByDb.set(db, known);
  }
  return known;
}

// Reads by a globally unique id, the owner checked here (docs/indexes.md
// "Reads by id alone").
//
// why: FerretDB pushes every top-level equality down as its own `@>` test.
// For an organisation loaded after PostgreSQL last gathered statistics,
// `org_id @> …` is estimated at one row, so the planner answered
// `{ org_id, bank_transaction_id }` through the org_id GIN index and filtered
// the org's thousands of rows by the id (2.3 ms against 0.35 ms: docs/design/performance.md).
// An `_id`, a book record's id in a link (ids are global: an import refuses
// another organisation's) and a plan-lock key (it starts with its org) each
// name one organisation's documents already, so on FerretDB the filter is
// the id alone and a document of another organisation is dropped here: the
// answer is the same as with org_id in the filter, whatever the statistics.
// MongoDB keeps org_id in the filter (its compound indexes and a sharded
// cluster's routing start with it).

/** A projection that also returns org_id (for the owner check); undefined stays undefined. */
function withOrg(projection: Document | undefined): Document | undefined {
  return projection ? { ...projection, org_id: 1 } : undefined;
}

/**
 * The org's document with this `_id`; null when there is none or it is
 * another organisation's. FerretDB: read by `_id` alone, the owner checked
 * here. MongoDB: `{ _id, org_id }` as before (its planner has no such
 * misplan, and a sharded cluster routes by org_id: docs/operating/scaling.md).
 */
export async function findOwnedById<D extends Document & { org_id: string }>(
  db: Db,
  collection: Collection<D>,
  orgId: string,
  id: string,
  projection?: Document,
): Promise<WithId<D> | null> {
  if (!(await isFerretDb(db)))
    return collection.findOne(
      { _id: id, org_id: orgId } as Filter<D>,
      projection ? { projection: withOrg(projection) } : {},
    );
  const doc = await collection.findOne({ _id: id } as Filter<D>, projection ? { projection: withOrg(projection) } : {});
  return doc && doc.org_id === orgId ? doc : null;
}

/**
 * As findWhereIn, for a field whose values are globally unique (see above).
 * FerretDB, up to EQUALITY_QUERY_MAX ids: one equality read per id on the
 * field alone, the owner checked here. Otherwise (MongoDB, whose compound
 * indexes start with org_id; longer lists, where the field alone would be a
 * `$in` over every organisation): findWhereIn.
 */
export async function findOwnedWhereIn<D extends Document & { org_id: string }>(
  db: Db,
  collection: Collection<D>,
  orgId: string,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  if (ids.length > EQUALITY_QUERY_MAX || !(await isFerretDb(db)))
    return findWhereIn(db, collection, orgId, field, ids, projection);
  const found = await readEach(ids, (id) =>
    collection.find({ [field]: id } as Filter<D>, { projection: withOrg(projection) }).toArray(),
  );
  return found.filter((doc) => doc.org_id === orgId);
}
