// Stored documents are domain records with `_id` for `id` and the owning
// `org_id`. Every read filters by org_id; this function is the only
// place that translates.
import type { Stored } from './collections.js';

export type { Stored };

// TypeScript cannot follow "Omit 'id', add '_id' and 'org_id', then undo it"
// through a type parameter, so the generic signature states the mapping and
// the implementation below it moves the two keys and copies every other field.
export function fromStored<T extends { id: string }>(doc: Stored<T>): T;
export function fromStored(doc: Stored<{ id: string }>): { id: string } {
  const { _id, org_id: _org, ...rest } = doc;
  return { id: _id, ...rest };
}

/** Each stored document's numeric `version` by `_id` (the store port's versionsByIds, an apply's preconditions). */
export function versionsOf(docs: ReadonlyArray<{ _id?: unknown; version?: unknown }>): Map<string, number> {
  const versions = new Map<string, number>();
  for (const d of docs) if (typeof d._id === 'string' && typeof d.version === 'number') versions.set(d._id, d.version);
  return versions;
}
