// The mongo adapter of the store port (shared/storage/port.ts,
// docs/design/architecture.md "The store port"): what MongoDB runs, and what
// runs on FerretDB without SQL. What differs between those two servers (how
// a list of ids is read, which indexes are built) is its DriverStrategy:
// MongoDB's here (mongoStrategy), FerretDB's in
// shared/storage/ferretdb/driver-strategy.ts (docs/indexes.md "Why FerretDB needs more").
import type { AnyBulkWriteOperation, Collection, Db, Document, Filter, WithId } from 'mongodb';
import { bulkWriteBounded } from './bounded-bulk-write.js';
import type {
  DriverStrategy,
  FieldsQuery,
  HighestQuery,
  InsertOutcome,
  LatestQuery,
  OwnedDocument,
  PageQuery,
  ReferencedTransaction,
  StorePort,
  WhereQuery,
} from './port.js';
import { readRepairRecords } from './repair-records-driver.js';
import { isUniqueViolation } from './unique-violation.js';
import { readInChunks } from './in-chunks.js';
import { versionsOf } from './documents.js';
import * as primitives from './mongo-primitives.js';

/** The keyset condition: strictly after (or before, descending) `after` in (field, _id) order. */
function keyset(field: string, after: PageQuery['after'], direction: 1 | -1): Document {
  if (!after) return {};
  const beyond = direction === 1 ? '$gt' : '$lt';
  return { $or: [{ [field]: { [beyond]: after.key } }, { [field]: after.key, _id: { [beyond]: after.id } }] };
}

/** The MongoDB filter of a page: equalities first (the GIN-indexed part FerretDB pushes down), then the range and the keyset. */
export function pageFilter(q: PageQuery): Document {
  const out: Document = {};
  for (const [k, v] of Object.entries(q.equalities)) if (v !== undefined) out[k] = v;
  if (q.from !== undefined || q.to !== undefined) {
    out[q.key] = { ...(q.from === undefined ? {} : { $gte: q.from }), ...(q.to === undefined ? {} : { $lte: q.to }) };
  }
  // A range and a keyset on the same field: the keyset's $or carries its own bound, the range stays top level.
  return { ...out, ...keyset(q.key, q.after, q.direction) };
}

/** The driver projection `{field: 1}` of `fields`, `_id` only when named. */
function projectionOf(fields: readonly string[]): Document {
  const projection: Document = Object.fromEntries(fields.map((f) => [f, 1]));
  if (!fields.includes('_id')) projection._id = 0;
  return projection;
}

/** `doc` without `org_id` (read only for the owner check). */
function withoutOrg(doc: Document): Document {
  const { org_id: _org, ...rest } = doc;
  return rest;
}

const REFERENCE_PROJECTION = { _id: 1, version: 1, bank_reference: 1 } as const;

/** A projection that also returns org_id (for the owner check); undefined stays undefined. */
export function withOrg(projection: Document | undefined): Document | undefined {
  return projection ? { ...projection, org_id: 1 } : undefined;
}

/** The org's (or, with null, any organisation's) documents whose `field` is one of `ids`: `$in` in chunks, which MongoDB's indexes serve. */
function inChunks<D extends OwnedDocument>(
  collection: Collection<D>,
  orgId: string | null,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return Promise.resolve([]);
  // orgId null: ids across every organisation (the importer's check that ids are not taken elsewhere).
  const scope = orgId === null ? {} : { org_id: orgId };
  return readInChunks(ids, (chunk) =>
    collection.find({ ...scope, [field]: { $in: chunk } } as Filter<D>, { projection }).toArray(),
  );
}

/**
 * MongoDB's answers: every list of ids is a chunked `$in` with org_id in the
 * filter (its compound indexes, and a sharded cluster's routing, start with
 * it: docs/operating/scaling.md), and its ordinary indexes are all it needs.
 */
export const mongoStrategy: DriverStrategy = {
  findWhereIn: inChunks,

  findOwnedById<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    id: string,
    projection?: Document,
  ): Promise<WithId<D> | null> {
    return collection.findOne(
      { _id: id, org_id: orgId } as Filter<D>,
      projection ? { projection: withOrg(projection) } : {},
    );
  },

  findOwnedWhereIn: inChunks,

  findOwnedEach<D extends OwnedDocument>(
    collection: Collection<D>,
    orgId: string,
    field: string,
    ids: readonly string[],
  ): Promise<WithId<D>[]> {
    return inChunks(collection, orgId, field, ids);
  },

  orgPassFirst: false,

  makesPageOnlyIndexes: true,

  // The (org_id, bank_account_id, bank_reference) index.
  async accountReferences(transactions, orgId, bankAccountId, references): Promise<ReferencedTransaction[]> {
    const found = await readInChunks(references, (chunk) =>
      transactions
        .find(
          { org_id: orgId, bank_account_id: bankAccountId, bank_reference: { $in: chunk } },
          { projection: REFERENCE_PROJECTION },
        )
        .toArray(),
    );
    return found.map(referencedTransaction);
  },

  ensureServerIndexes(): Promise<null> {
    return Promise.resolve(null);
  },
};

/** A transaction read for its reference, as accountReferences answers it. */
export function referencedTransaction(d: Document): ReferencedTransaction {
  return { id: d._id as string, version: d.version as number, bank_reference: d.bank_reference as string };
}

/** The driver's adapter for `db`, using the driver as `driver` says (MongoDB's way unless told). */
export function mongoAdapter(db: Db, driver: DriverStrategy = mongoStrategy): StorePort {
  const adapter: StorePort = {
    name: 'mongo',
    driver,
    insertsTogether: false,

    page(q: PageQuery): Promise<Document[]> {
      return db
        .collection(q.collection)
        .find(pageFilter(q))
        .sort({ [q.key]: q.direction, _id: q.direction })
        .limit(q.limit)
        .toArray();
    },

    fields(q: FieldsQuery): Promise<Document[]> {
      return db
        .collection(q.collection)
        .find(q.range ? { ...q.equalities, [q.range.key]: { $gte: q.range.from, $lte: q.range.to } } : q.equalities, {
          projection: projectionOf(q.fields),
        })
        .toArray();
    },

    async latest(q: LatestQuery): Promise<Document[]> {
      if (q.values.length === 0) return [];
      const read = [...new Set([...q.fields, '_id', q.key, q.per])];
      const extra = Object.keys(q.equalities).filter((f) => f !== 'org_id');
      if (extra.length > 0) throw new Error(`latest: only org_id is supported as an equality (${extra.join(', ')})`);
      const docs = await driver.findWhereIn(
        db.collection<OwnedDocument>(q.collection),
        q.equalities.org_id ?? null,
        q.per,
        q.values,
        Object.fromEntries(read.map((f) => [f, 1])),
      );
      // The last by (key, _id), in byte order as the store orders strings (ids and ISO dates are ASCII).
      const last = new Map<unknown, Document>();
      for (const doc of docs) {
        const held = last.get(doc[q.per]);
        if (!held || held[q.key] < doc[q.key] || (held[q.key] === doc[q.key] && String(held._id) < String(doc._id)))
          last.set(doc[q.per], doc);
      }
      return [...last.values()].map((doc) => {
        const out: Document = {};
        for (const f of q.fields) if (f in doc) out[f] = doc[f] as unknown;
        return out;
      });
    },

    async highest(q: HighestQuery): Promise<Document | null> {
      const [doc] = await db
        .collection(q.collection)
        .find(q.equalities)
        .sort({ [q.key]: -1 })
        .limit(1)
        .toArray();
      return doc ?? null;
    },

    async where(q: WhereQuery): Promise<Document[]> {
      const collection = db.collection<Document & { org_id: string }>(q.collection);
      const fields = q.fields && q.fields.length > 0 ? q.fields : undefined;
      const projection = fields && Object.fromEntries(['_id', ...fields].map((f) => [f, 1]));
      const asked = (docs: Document[]): Document[] =>
        fields && q.owner !== undefined && !fields.includes('org_id') ? docs.map(withoutOrg) : docs;
      if (!q.any) {
        const docs = await collection
          .find(q.equalities as Filter<Document & { org_id: string }>, { projection })
          .toArray();
        return q.owner === undefined ? docs : docs.filter((d) => d.org_id === q.owner);
      }
      if (q.any.values.length === 0) return [];
      if (Object.keys(q.equalities).some((f) => f !== 'org_id')) {
        // Other equalities beside the list (a figure's kind): every one in the filter, the list in chunks.
        const any = q.any;
        const docs = await readInChunks(any.values, (chunk) =>
          collection
            .find({ ...q.equalities, [any.field]: { $in: chunk } } as Filter<Document & { org_id: string }>, {
              projection: q.owner === undefined ? projection : withOrg(projection),
            })
            .toArray(),
        );
        return asked(q.owner === undefined ? docs : docs.filter((d) => d.org_id === q.owner));
      }
      if (q.owner !== undefined)
        return asked(await driver.findOwnedWhereIn(collection, q.owner, q.any.field, q.any.values, projection));
      const org = q.equalities.org_id;
      return driver.findWhereIn(
        collection,
        typeof org === 'string' ? org : null,
        q.any.field,
        q.any.values,
        projection,
      );
    },

    findById(collection: string, id: string, projection?: Document): Promise<Document | null> {
      return db.collection(collection).findOne({ _id: id as never }, projection ? { projection } : {});
    },

    findOwnedById(collection: string, orgId: string, id: string, projection?: Document): Promise<Document | null> {
      return driver.findOwnedById(db.collection<OwnedDocument>(collection), orgId, id, projection);
    },

    findByIds(collection, ids, options = {}): Promise<Document[]> {
      return adapter.where({
        collection,
        equalities: {},
        any: { field: '_id', values: ids },
        fields: options.fields,
        owner: options.owner,
      });
    },

    async versionsByIds(collection, orgId, ids): Promise<Map<string, number>> {
      const docs = await adapter.findByIds(collection, ids, { owner: orgId, fields: ['_id', 'version'] });
      return versionsOf(docs);
    },

    repairRecords(orgId: string, accountId: string, counterpartyId: string) {
      return readRepairRecords(db, driver, orgId, accountId, counterpartyId);
    },

    async accountReferences(
      orgId: string,
      bankAccountId: string,
      references: readonly string[],
    ): Promise<ReferencedTransaction[]> {
      const wanted = [...new Set(references)];
      if (wanted.length === 0) return [];
      return driver.accountReferences(db.collection<OwnedDocument>('bank_transactions'), orgId, bankAccountId, wanted);
    },

    reserveVersions(orgId, collection, wanted, holder, now) {
      return primitives.reserveVersions(db, driver, orgId, collection, wanted, holder, now);
    },

    takeLocks(locks, first) {
      return primitives.takeLocks(db, locks, first);
    },

    releaseLocks(orgId, operationId) {
      return primitives.releaseLocks(db, orgId, operationId);
    },

    dropLock(lock) {
      return primitives.dropLock(db, lock);
    },

    appendLeaseStep(step) {
      return primitives.appendLeaseStep(db, step);
    },

    claimTransition(claim) {
      return primitives.claimTransition(db, claim);
    },

    writeTransition(orgId, id, from, set, item) {
      return primitives.writeTransition(db, orgId, id, from, set, item);
    },

    takeOverExpiredKey(record) {
      return primitives.takeOverExpiredKey(db, record);
    },

    async reserveSequence(orgId: string): Promise<number | 'taken'> {
      const next = (await adapter.sequenceMarks(orgId, '')).highest + 1;
      try {
        await db
          .collection<{ _id: string; org_id: string; sequence: number; at: string }>('event_sequences')
          .insertOne({ _id: `${orgId}:${next}`, org_id: orgId, sequence: next, at: new Date().toISOString() });
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken';
        throw err;
      }
      return next;
    },

    async sequenceMarks(orgId: string, cutoff: string): Promise<{ final: number; highest: number }> {
      const reservations = await db
        .collection<{ org_id: string; sequence: number; at: string }>('event_sequences')
        .find({ org_id: orgId }, { projection: { sequence: 1, at: 1 } })
        .toArray();
      let final = 0;
      let highest = 0;
      for (const r of reservations) {
        highest = Math.max(highest, r.sequence);
        if (r.at <= cutoff) final = Math.max(final, r.sequence);
      }
      return { final, highest };
    },

    async writeByIds(collection, orgId, writes) {
      if (writes.length === 0) return 0;
      const ops = writes.map((w): AnyBulkWriteOperation<OwnedDocument & { _id: string }> => {
        const filter = { _id: w.id, org_id: orgId, ...(w.guard ? { [w.guard.field]: w.guard.value } : {}) };
        return w.set ? { updateOne: { filter, update: { $set: w.set } } } : { deleteOne: { filter } };
      });
      const r = await bulkWriteBounded(db.collection<OwnedDocument & { _id: string }>(collection), ops, {
        ordered: false,
      });
      return r.matchedCount + r.deletedCount;
    },

    // why declined: MongoDB writes several collections all or none only in a transaction, which the callers' own driver paths avoid (docs/operating/reliability.md "Atomic primitives").
    insertTogether(): Promise<InsertOutcome> {
      return Promise.resolve('declined');
    },

    // MongoDB keeps its statistics itself; FerretDB without SQL has no way to ask PostgreSQL.
    refreshStatistics(): Promise<string[]> {
      return Promise.resolve([]);
    },

    close(): Promise<void> {
      return Promise.resolve();
    },
  };
  return adapter;
}
