// The per-organisation inbox version (docs/design/duplicate-overview.md): a token
// that changes after every write to the organisation's inbox, so that a
// materialized duplicate overview can say which inbox it was computed from.
//
// why a fresh random token and not `$inc`: FerretDB 1.24 runs an update as a
// read followed by a write, not an atomic compare-and-set, so two concurrent
// `$inc`s can both write n + 1 and one change would never be noticed. A
// fresh token per write is new whoever wins; the last write stands.
import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections } from './collections.js';
import { isUniqueViolation } from './unique-violation.js';
import { storeAdapter } from './store-adapter.js';

/** The version of an organisation whose inbox no writer has marked yet (data loaded before versions existed). */
export const INITIAL_INBOX_VERSION = 'initial';

/** Read through the store port (in SQL on FerretDB 1.x). */
export async function currentInboxVersion(db: Db, orgId: string): Promise<string> {
  const doc = await (
    await storeAdapter(db)
  ).findById(collections(db).inboxVersions.collectionName, orgId, {
    version: 1,
  });
  return (doc?.version as string | undefined) ?? INITIAL_INBOX_VERSION;
}

/**
 * Give the organisation's inbox a new version. Call it after the inbox
 * writes have finished: an overview computed before the call is never served
 * again, one computed after it sees every write.
 */
export async function bumpInboxVersion(db: Db, orgId: string): Promise<string> {
  const version = `${Date.now().toString(36)}_${randomBytes(6).toString('hex')}`;
  const set = { $set: { org_id: orgId, version, changed_at: new Date().toISOString() } };
  const versions = collections(db).inboxVersions;
  try {
    await versions.updateOne({ _id: orgId }, set, { upsert: true });
  } catch (err) {
    // Two first bumps raced on the upsert's insert: the document exists now, update it.
    if (!isUniqueViolation(err)) throw err;
    await versions.updateOne({ _id: orgId }, set);
  }
  return version;
}
