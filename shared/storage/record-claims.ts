// Version claims on book records (docs/operating/reliability.md "Atomic primitives").
//
// why: FerretDB 1.24 runs a filtered update or delete as a read followed by a
// write by `_id`, so two writers guarded by the same version can both
// "match" and one write is silently lost. The one write it makes atomic is an
// insert under a unique `_id`. So every writer that moves a book record from
// version V (an apply journal's update or delete, its undo, the admin import
// and the import's undo) first inserts the claim `ORG/COLLECTION/ID@V`: of
// any number of writers guarded by V, exactly one holds the claim and may
// write; the others see E11000 and treat the record as changed. A holder
// names itself (`op:ID` for a staged operation's journal, `import:UUID` for
// one import), so a retried journal finds its own claim and goes on.
//
// Claims stay after the write: a claim on a version the record has left
// costs nothing and blocks nothing (versions only grow), and the claims of a
// deleted record remember its last version, so that a record inserted again
// under the same id starts above it (highestClaimedVersions): an old plan's
// version check can never pass against new content (ABA).
import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections } from './collections.js';
import type { VersionedId } from './port.js';
import { storeAdapter } from './store-adapter.js';
import { findOwnedWhereIn } from './where-in.js';

export type { VersionedId } from './port.js';
export { IMPORT_CLAIM_LAPSE_MS } from './mongo-primitives.js';

export const operationHolder = (operationId: string): string => `op:${operationId}`;
export const newImportHolder = (): string => `import:${randomUUID()}`;

const claims = (db: Db) => collections(db).recordClaims;

/**
 * Claim each `{id, version}` of `collection` for `holder`, in one unordered
 * insert (the store port's claimVersions). Returns the ids whose claim
 * `holder` now holds (taken now, held from an earlier attempt, or taken over
 * from a lapsed import); the others are held by another writer.
 */
export async function claimVersions(
  db: Db,
  orgId: string,
  collection: string,
  wanted: readonly VersionedId[],
  holder: string,
  now = new Date(),
): Promise<Set<string>> {
  if (wanted.length === 0) return new Set();
  return (await storeAdapter(db)).claimVersions(orgId, collection, wanted, holder, now);
}

/** Claim one version; true when `holder` holds it. */
export async function claimVersion(
  db: Db,
  orgId: string,
  collection: string,
  id: string,
  version: number,
  holder: string,
): Promise<boolean> {
  return (await claimVersions(db, orgId, collection, [{ id, version }], holder)).has(id);
}

/** Of `ids` in `collection`, the highest version ever claimed, by id (absent: never claimed). */
export async function highestClaimedVersions(
  db: Db,
  orgId: string,
  collection: string,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const found = await findOwnedWhereIn(
    db,
    claims(db),
    orgId,
    'record',
    ids.map((id) => `${collection}/${id}`),
    { record: 1, version: 1 },
  );
  const out = new Map<string, number>();
  for (const c of found) {
    const id = c.record.slice(collection.length + 1);
    out.set(id, Math.max(out.get(id) ?? 0, c.version));
  }
  return out;
}
