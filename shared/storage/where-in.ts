// Reading an organisation's records by a list of ids, the cheapest way for
// the server behind the connection: the store port's DriverStrategy decides
// how (docs/design/architecture.md "The store port"; MongoDB's way in
// shared/storage/mongo-adapter.ts, FerretDB's in
// shared/storage/ferretdb/driver-strategy.ts, docs/indexes.md "Why FerretDB needs more").
import type { Collection, Db, Document, WithId } from 'mongodb';
import type { OwnedDocument } from './port.js';
import { storeAdapter } from './store-adapter.js';

/**
 * The org's documents whose `field` is one of `ids`, in no particular order
 * (orgId null: any organisation's); never more than one full read of the org
 * per call.
 */
export async function findWhereIn<D extends OwnedDocument>(
  db: Db,
  collection: Collection<D>,
  orgId: string | null,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  return (await storeAdapter(db)).driver.findWhereIn(collection, orgId, field, ids, projection);
}

/**
 * The org's document with this `_id`; null when there is none or it is
 * another organisation's (docs/indexes.md "Reads by id alone").
 */
export async function findOwnedById<D extends OwnedDocument>(
  db: Db,
  collection: Collection<D>,
  orgId: string,
  id: string,
  projection?: Document,
): Promise<WithId<D> | null> {
  return (await storeAdapter(db)).driver.findOwnedById(collection, orgId, id, projection);
}

/** As findWhereIn, for a field whose values are globally unique ids (docs/indexes.md "Reads by id alone"). */
export async function findOwnedWhereIn<D extends OwnedDocument>(
  db: Db,
  collection: Collection<D>,
  orgId: string,
  field: string,
  ids: readonly string[],
  projection?: Document,
): Promise<WithId<D>[]> {
  if (ids.length === 0) return [];
  return (await storeAdapter(db)).driver.findOwnedWhereIn(collection, orgId, field, ids, projection);
}
