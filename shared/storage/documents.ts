// Stored documents are domain records with `_id` for `id` and the owning
// `org_id`. Every read filters by org_id; these two functions are the only
// place that translates.
import type { Stored } from './collections.js';

export type { Stored };

export function toStored<T extends { id: string }>(orgId: string, record: T): Stored<T> {
  const { id, ...rest } = record;
  return { _id: id, org_id: orgId, ...rest } as Stored<T>;
}

export function fromStored<T extends { id: string }>(doc: Stored<T>): T {
  const { _id, org_id: _org, ...rest } = doc;
  return { id: _id, ...rest } as unknown as T;
}
