// The store port on FerretDB 1.x's own PostgreSQL tables
// (docs/design/architecture.md "The store port", docs/indexes.md): the
// driver's adapter with the reads and inserts PostgreSQL answers better in
// SQL (postgres-pages.ts). Where SQL cannot answer (no table yet, a value
// the decoder does not give exactly, PostgreSQL unreachable), the method
// asks the driver's adapter (with FerretDB's DriverStrategy:
// driver-strategy.ts), so every answer is the driver's answer.
import type { Db, Document } from 'mongodb';
import { collections } from '../collections.js';
import { claimId } from '../mongo-primitives.js';
import { mongoAdapter } from '../mongo-adapter.js';
import type { StorePort, WhereQuery } from '../port.js';
import { IN_CHUNK_SIZE } from '../in-chunks.js';
import type { PostgresPages, PostgresPagesStats } from './postgres-pages.js';
import { ferretDbStrategy } from './driver-strategy.js';
import { readRepairRecordsInSql } from './repair-records.js';

/** Only inclusion projections are made in SQL (`fields`); an exclusion goes to the driver. */
function inclusion(projection: Document | undefined): readonly string[] | undefined | false {
  if (!projection) return undefined;
  return Object.values(projection).every((v) => v === 1) ? Object.keys(projection) : false;
}

/** `doc` without `org_id` (read only for the owner check). */
function withoutOrg(doc: Document): Document {
  const { org_id: _org, ...rest } = doc;
  return rest;
}

/** The FerretDB adapter, with what its SQL served and declined (for the tests and the bench). */
export type FerretDbPort = StorePort & { readonly stats: PostgresPagesStats };

/** The FerretDB adapter for `db`, on `pages` (a pool on the PostgreSQL database behind FerretDB). */
export function ferretDbAdapter(db: Db, pages: PostgresPages): FerretDbPort {
  const mongo = mongoAdapter(db, ferretDbStrategy);

  /** `q` in SQL, the owner checked here; null when PostgreSQL cannot answer. */
  const whereInSql = async (q: WhereQuery): Promise<Document[] | null> => {
    if (q.any && q.any.values.length === 0) return [];
    const fields = q.fields && q.fields.length > 0 ? q.fields : undefined;
    const withOrg = fields && q.owner !== undefined && !fields.includes('org_id') ? [...fields, 'org_id'] : fields;
    const docs: Document[] = [];
    // IN_CHUNK_SIZE values a query: the statement's text and its one array parameter stay small.
    const lists = q.any
      ? Array.from({ length: Math.ceil(q.any.values.length / IN_CHUNK_SIZE) }, (_, i) =>
          q.any!.values.slice(i * IN_CHUNK_SIZE, (i + 1) * IN_CHUNK_SIZE),
        )
      : [undefined];
    for (const values of lists) {
      const read = await pages.where(db, {
        collection: q.collection,
        equalities: q.equalities,
        any: values && { field: q.any!.field, values },
        fields: withOrg,
      });
      if (!read) return null;
      // One at a time: a spread of a big read's rows overflows the call stack.
      for (const d of read) docs.push(d);
    }
    if (q.owner === undefined) return docs;
    const owned = docs.filter((d) => d.org_id === q.owner);
    return withOrg === fields ? owned : owned.map(withoutOrg);
  };

  const adapter: FerretDbPort = {
    ...mongo,
    name: 'ferretdb',
    stats: pages.stats,
    insertsTogether: true,

    async page(q) {
      return (await pages.page(db, q)) ?? mongo.page(q);
    },

    async fields(q) {
      return (await pages.fields(db, q)) ?? mongo.fields(q);
    },

    async latest(q) {
      return (await pages.latest(db, q)) ?? mongo.latest(q);
    },

    async highest(q) {
      const doc = await pages.highest(db, q);
      return doc === undefined ? mongo.highest(q) : doc;
    },

    async where(q) {
      return (await whereInSql(q)) ?? mongo.where(q);
    },

    async findById(collection, id, projection) {
      const fields = inclusion(projection);
      if (fields === false) return mongo.findById(collection, id, projection);
      const docs = await pages.where(db, { collection, equalities: {}, any: { field: '_id', values: [id] }, fields });
      return docs ? (docs[0] ?? null) : mongo.findById(collection, id, projection);
    },

    async findOwnedById(collection, orgId, id, projection) {
      const fields = inclusion(projection);
      if (fields === false) return mongo.findOwnedById(collection, orgId, id, projection);
      const docs = await pages.where(db, {
        collection,
        equalities: {},
        any: { field: '_id', values: [id] },
        fields: fields && [...fields, 'org_id'],
      });
      if (!docs) return mongo.findOwnedById(collection, orgId, id, projection);
      return docs.find((d) => d.org_id === orgId) ?? null;
    },

    async findByIds(collection, ids, options = {}) {
      const q = { collection, equalities: {}, any: { field: '_id', values: ids }, ...options };
      return (await whereInSql(q)) ?? mongo.findByIds(collection, ids, options);
    },

    async versionsByIds(collection, orgId, ids) {
      return (await pages.versions(db, collection, orgId, ids)) ?? mongo.versionsByIds(collection, orgId, ids);
    },

    async repairRecords(orgId, accountId, counterpartyId) {
      return (
        (await readRepairRecordsInSql(db, pages, orgId, accountId, counterpartyId)) ??
        mongo.repairRecords(orgId, accountId, counterpartyId)
      );
    },

    async accountReferences(orgId, bankAccountId, references) {
      const wanted = [...new Set(references)];
      return (
        (await pages.accountReferences(db, orgId, bankAccountId, wanted)) ??
        mongo.accountReferences(orgId, bankAccountId, wanted)
      );
    },

    // Many versions at once (an apply journal's run): one SQL insert, all or none; any reservation already there
    // (held by this holder from an earlier attempt, or by another writer) sends the whole set through the driver,
    // which tells them apart (docs/operating/reliability.md "Atomic primitives").
    async reserveVersions(orgId, collection, wanted, holder, now) {
      if (wanted.length > 1) {
        const docs = wanted.map(({ id, version }) => ({
          _id: claimId(orgId, collection, id, version),
          org_id: orgId,
          record: `${collection}/${id}`,
          version,
          holder,
          at: now.toISOString(),
        }));
        const stored = await pages.insertTogether(db, [
          { collection: collections(db).versionReservations.collectionName, docs },
        ]);
        if (stored === 'stored') return new Set(wanted.map((w) => w.id));
      }
      return mongo.reserveVersions(orgId, collection, wanted, holder, now);
    },

    // Every lock of the operation in one SQL delete (each lock's `_id` names its holder, so only its own go).
    async releaseLocks(orgId, operationId) {
      const collection = collections(db).planLocks.collectionName;
      if ((await pages.deleteOwned(db, collection, orgId, 'staged_operation_id', operationId)) === null)
        await mongo.releaseLocks(orgId, operationId);
    },

    async reserveSequence(orgId) {
      return (await pages.reserveSequence(db, orgId, new Date().toISOString())) ?? mongo.reserveSequence(orgId);
    },

    async sequenceMarks(orgId, cutoff) {
      return (await pages.sequenceMarks(db, orgId, cutoff)) ?? mongo.sequenceMarks(orgId, cutoff);
    },

    // In SQL what PostgreSQL can write as FerretDB would (postgres-writes.ts); the rest, and anything SQL
    // declined, through the driver, whose guards make each write once.
    async writeByIds(collection, orgId, writes) {
      if (writes.length === 0) return 0;
      const made = await pages.writeByIds(db, collection, orgId, writes);
      const rest = made.size === 0 ? writes : writes.filter((w) => !made.has(w.id));
      return made.size + (rest.length > 0 ? await mongo.writeByIds(collection, orgId, rest) : 0);
    },

    insertTogether(groups) {
      return pages.insertTogether(db, groups);
    },

    refreshStatistics(collections) {
      return pages.analyze(db, collections);
    },

    close() {
      return pages.close();
    },
  };
  return adapter;
}
