// FerretDB's answers to the store port's DriverStrategy (shared/storage/port.ts,
// docs/design/architecture.md "The store port"): how the driver is used on
// FerretDB, with or without the SQL of the accelerated adapter. The `mongo`
// adapter carries them on a FerretDB server (also when its PostgreSQL
// tables cannot be read: select.ts), the accelerated adapter always.
//
// why: FerretDB 1.24 pushes only equality filters down to PostgreSQL. A `$in`
// of any length (even one id), a range or an `$or` makes FerretDB read and
// convert every document of the organisation, and matching a long `$in` list
// is linear per document. Measured here (FerretDB 1.24.2 on PostgreSQL 15,
// one org of 20,000 links, reading links by bank_transaction_id):
//   20 ids:     equality 160 ms   one `$in` 630 ms     whole org 1.2 s
//   2,000 ids:  equality 11.4 s   `$in` ×2   1.6 s     whole org 1.3 s
//   20,000 ids: equality 79 s     `$in` ×20  15 s      whole org 1.3 s
// MongoDB serves `$in` from the index, so there it is chunked `$in` always
// (shared/storage/mongo-adapter.ts mongoStrategy).
import type { Collection, Document, Filter, WithId } from 'mongodb';
import { IN_CHUNK_SIZE } from '../in-chunks.js';
import { referencedTransaction, withOrg } from '../mongo-adapter.js';
import type { DriverStrategy, OwnedDocument, ReferencedTransaction } from '../port.js';
import { ensurePostgresGinIndexes } from './postgres-gin-indexes.js';
import { rememberPostgresUrl } from './planner-statistics.js';

/** On FerretDB, up to this many ids are read by one equality query each. */
export const EQUALITY_QUERY_MAX = 100;
const EQUALITY_CONCURRENCY = 16;

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

/**
 * The org's documents whose `field` is one of `ids`, in no particular order:
 * one equality query per id up to EQUALITY_QUERY_MAX ids, else one `$in` up
 * to IN_CHUNK_SIZE ids, else one pass over the org's documents (equality on
 * org_id) filtered here: never more than one full read of the org per call.
 */
async function findWhereIn<D extends OwnedDocument>(
  collection: Collection<D>,
  orgId: string | null,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  // orgId null: ids across every organisation (the importer's check that ids are not taken elsewhere).
  const scope = orgId === null ? {} : { org_id: orgId };
  const where = (condition: unknown) =>
    collection.find({ ...scope, [field]: condition } as Filter<D>, { projection }).toArray();
  if (ids.length <= EQUALITY_QUERY_MAX) return readEach(ids, (id) => where(id));
  if (ids.length <= IN_CHUNK_SIZE) return where({ $in: [...ids] });
  const wanted = new Set(ids);
  const out: WithId<D>[] = [];
  for await (const doc of collection.find(scope as Filter<D>, { projection })) {
    if (wanted.has((doc as Record<string, unknown>)[field] as string)) out.push(doc);
  }
  return out;
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
// another organisation's) and a scope-lock key (it starts with its org) each
// name one organisation's documents already, so on FerretDB the filter is
// the id alone and a document of another organisation is dropped here: the
// answer is the same as with org_id in the filter, whatever the statistics.

/** The id alone, the owner checked here, one equality read per id. */
async function findOwnedEach<D extends OwnedDocument>(
  collection: Collection<D>,
  orgId: string,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  const found = await readEach(ids, (id) =>
    collection.find({ [field]: id } as Filter<D>, { projection: withOrg(projection) }).toArray(),
  );
  return found.filter((doc) => doc.org_id === orgId);
}

/** FerretDB's answers (see above). */
export const ferretDbStrategy: DriverStrategy = {
  findWhereIn,

  async findOwnedById<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    id: string,
    projection?: Document,
  ): Promise<WithId<D> | null> {
    const doc = await collection.findOne(
      { _id: id } as Filter<D>,
      projection ? { projection: withOrg(projection) } : {},
    );
    return doc && doc.org_id === orgId ? doc : null;
  },

  // Longer lists, where the field alone would be a `$in` over every organisation: findWhereIn.
  findOwnedWhereIn(collection, orgId, field, ids, projection) {
    if (ids.length > EQUALITY_QUERY_MAX) return findWhereIn(collection, orgId, field, ids, projection);
    return findOwnedEach(collection, orgId, field, ids, projection);
  },

  findOwnedEach(collection, orgId, field, ids) {
    return findOwnedEach(collection, orgId, field, ids);
  },

  orgPassFirst: true,

  makesPageOnlyIndexes: false,

  // The account by equality, filtered here; a `$in` there reads the whole organisation.
  async accountReferences(
    transactions: Collection<OwnedDocument>,
    orgId: string,
    bankAccountId: string,
    references: readonly string[],
  ): Promise<ReferencedTransaction[]> {
    const set = new Set(references);
    const out: ReferencedTransaction[] = [];
    for await (const doc of transactions.find(
      { org_id: orgId, bank_account_id: bankAccountId },
      { projection: { _id: 1, version: 1, bank_reference: 1 } },
    )) {
      if (typeof doc.bank_reference === 'string' && set.has(doc.bank_reference)) out.push(referencedTransaction(doc));
    }
    return out;
  },

  // FerretDB 1.24 on PostgreSQL pushes an equality down as `_jsonb -> 'field' @> 'value'`, which its own btree
  // indexes never serve: each equality field gets a PostgreSQL GIN expression index (postgres-gin-indexes.ts).
  async ensureServerIndexes(db, targets, { postgresUrl, logger }) {
    if (!postgresUrl) {
      logger?.warn(
        { database: db.databaseName },
        'FerretDB without FERRETDB_POSTGRES_URL: PostgreSQL GIN indexes not checked; equality reads may scan whole tables (docs/indexes.md)',
      );
      return null;
    }
    rememberPostgresUrl(db, postgresUrl);
    const report = await ensurePostgresGinIndexes(postgresUrl, db.databaseName, [...targets]);
    if (report.created.length > 0 || report.warnings.length > 0)
      logger?.info({ database: db.databaseName, ...report }, 'PostgreSQL GIN and page indexes ensured');
    return report;
  },
};
