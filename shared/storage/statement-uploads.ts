// A statement file on its way from the API to the worker (docs/operating/reliability.md
// "What Redis holds"): the API stores the raw body here and the job carries only
// its id, so no file sits in Redis, which every organisation shares and which
// runs without eviction. The file is stored as base64 text in parts of at most
// BODY_PART_CHARS characters (text-parts.ts), as an operation's body is: no
// document may pass 16 MiB. Named by organisation and SHA-256, so the same
// file uploaded again is the same upload (an idempotent retry carries the
// same input); kept until `expires_at`, which a later upload only extends,
// then removed by the maintenance sweep.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { StatementUploadRef } from '../kinds/statement-import/schema.js';
import { collections, type StatementUploadDoc } from './collections.js';
import { BODY_PART_CHARS } from './staged-operation-codec.js';
import { splitFields } from './text-parts.js';
import { isUniqueViolation } from './unique-violation.js';
import { findWhereIn } from './where-in.js';

/**
 * How long an upload is kept: past the longest a staging job may still run
 * or be retried (its answer is kept 24 h, shared/storage/job-results.ts); a
 * dry run's job is done with it within its hour of retention.
 */
export const UPLOAD_KEEP_MS = 25 * 60 * 60 * 1000;
export const DRY_RUN_UPLOAD_KEEP_MS = 2 * 60 * 60 * 1000;

/** An upload named by its job that is not in the store (swept past its expiry, or never written): the job cannot read its file. */
export class MissingStatementUploadError extends Error {
  constructor(readonly uploadId: string) {
    super(`statement upload ${uploadId} is not in the store (expired or never written)`);
    this.name = 'MissingStatementUploadError';
  }
}

/**
 * Store a file for a job to read (or extend the expiry of the same file
 * stored before): its parts first, under ids of this write alone, then the
 * upload naming them; a write that finds the upload there already takes its
 * parts back. `keepMs`: how long the job may need it.
 */
export async function saveStatementUpload(
  db: Db,
  orgId: string,
  file: Buffer,
  keepMs: number,
  now = new Date(),
  partChars = BODY_PART_CHARS,
): Promise<StatementUploadRef> {
  const sha256 = createHash('sha256').update(file).digest('hex');
  const uploadId = `${orgId}:${sha256}`;
  const ref = { upload_id: uploadId, sha256, bytes: file.length };
  const expiresAt = new Date(now.getTime() + keepMs).toISOString();
  const c = collections(db).statementUploads;
  // Stored already: keep it at least as long as this job needs it.
  const extended = await c.updateMany({ upload: uploadId }, { $max: { expires_at: expiresAt } });
  if (extended.matchedCount > 0) return ref;
  const partId = `${uploadId}:${randomUUID()}`;
  const slices = splitFields([['content_base64', file.toString('base64')]], partChars);
  const parts: StatementUploadDoc[] = slices.map((slice, part) => ({
    _id: `${partId}/${part}`,
    org_id: orgId,
    upload: uploadId,
    part,
    content_base64: slice.content_base64 ?? '',
    expires_at: expiresAt,
  }));
  await c.insertMany(parts, { ordered: true });
  try {
    await c.insertOne({
      _id: uploadId,
      org_id: orgId,
      upload: uploadId,
      sha256,
      bytes: file.length,
      parts: parts.length,
      part_id: partId,
      expires_at: expiresAt,
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Another request stored the same file meanwhile: its upload stands, extended as above.
    await c.deleteMany({ _id: { $in: parts.map((p) => p._id) } });
    await c.updateMany({ upload: uploadId }, { $max: { expires_at: expiresAt } });
  }
  return ref;
}

/** The file an upload holds, its parts joined and its SHA-256 checked; a missing upload or part is an error, never half a file. */
export async function readStatementUpload(db: Db, orgId: string, uploadId: string): Promise<Buffer> {
  const c = collections(db).statementUploads;
  const head = await c.findOne({ _id: uploadId, org_id: orgId });
  if (!head || head.parts === undefined || head.part_id === undefined) throw new MissingStatementUploadError(uploadId);
  const ids = Array.from({ length: head.parts }, (_, part) => `${head.part_id!}/${part}`);
  const byId = new Map((await findWhereIn(db, c, orgId, '_id', ids)).map((p) => [p._id, p]));
  const text = ids
    .map((id) => {
      const part = byId.get(id);
      if (!part || part.upload !== uploadId) throw new MissingStatementUploadError(uploadId);
      return part.content_base64 ?? '';
    })
    .join('');
  const file = Buffer.from(text, 'base64');
  if (createHash('sha256').update(file).digest('hex') !== head.sha256) throw new MissingStatementUploadError(uploadId);
  return file;
}

export async function sweepStatementUploads(db: Db, now: Date): Promise<number> {
  return (await collections(db).statementUploads.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
