// Statement files stored for their job (shared/storage/statement-uploads.ts,
// docs/indexes.md "Statement uploads") on the test stack's store: cut into
// parts and joined back byte for byte, the same file sent again is the same
// upload with its expiry extended, a part missing is an error rather than
// half a file, and the sweep takes an upload past its expiry with its parts.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { collections } from '../../shared/storage/collections.js';
import {
  MissingStatementUploadError,
  readStatementUpload,
  saveStatementUpload,
  sweepStatementUploads,
} from '../../shared/storage/statement-uploads.js';
import { stack } from '../helpers/stack.js';

/** The error a promise is rejected with (null: it resolved). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return null;
  } catch (err) {
    return err;
  }
}

describe('statement uploads', () => {
  const now = new Date('2026-11-29T10:00:00.000Z');
  const hour = 3600_000;

  it('stores a file in parts and reads it back byte for byte; the same file again is the same upload, kept the longer', async () => {
    const { db } = await stack();
    const orgId = `org_uploads_${randomBytes(4).toString('hex')}`;
    const file = Buffer.concat([randomBytes(100), Buffer.from('\u0000é€', 'utf8')]);
    const ref = await saveStatementUpload(db, orgId, file, hour, now, 16);
    expect(ref.bytes).to.equal(file.length);
    expect(ref.upload_id).to.equal(`${orgId}:${ref.sha256}`);
    const stored = await collections(db).statementUploads.find({ org_id: orgId }).toArray();
    // 106 bytes are 144 base64 characters: 9 parts of 16, and the upload naming them.
    expect(stored).to.have.length(10);
    expect((await readStatementUpload(db, orgId, ref.upload_id)).equals(file)).to.equal(true);

    const again = await saveStatementUpload(db, orgId, file, 25 * hour, now, 16);
    expect(again).to.deep.equal(ref);
    const after = await collections(db).statementUploads.find({ org_id: orgId }).toArray();
    expect(after).to.have.length(10);
    expect(new Set(after.map((d) => d.expires_at))).to.deep.equal(new Set(['2026-11-30T11:00:00.000Z']));
    // A shorter keep never shortens it.
    await saveStatementUpload(db, orgId, file, hour, now, 16);
    expect((await collections(db).statementUploads.findOne({ _id: ref.upload_id }))!.expires_at).to.equal(
      '2026-11-30T11:00:00.000Z',
    );
    // Another organisation reads none of it.
    expect(await rejection(readStatementUpload(db, `${orgId}_other`, ref.upload_id))).to.be.instanceOf(
      MissingStatementUploadError,
    );
  });

  it('refuses a file with a part missing, and the sweep removes an upload and its parts past their expiry only', async () => {
    const { db } = await stack();
    const orgId = `org_uploads_${randomBytes(4).toString('hex')}`;
    const kept = await saveStatementUpload(db, orgId, randomBytes(60), 10 * hour, now, 16);
    const gone = await saveStatementUpload(db, orgId, randomBytes(60), hour, now, 16);
    const head = (await collections(db).statementUploads.findOne({ _id: gone.upload_id }))!;
    await collections(db).statementUploads.deleteOne({ _id: `${head.part_id!}/2` });
    expect(await rejection(readStatementUpload(db, orgId, gone.upload_id))).to.be.instanceOf(
      MissingStatementUploadError,
    );

    await sweepStatementUploads(db, new Date(now.getTime() + 2 * hour));
    const left = await collections(db).statementUploads.find({ org_id: orgId }).toArray();
    expect(new Set(left.map((d) => d.upload))).to.deep.equal(new Set([kept.upload_id]));
    expect((await readStatementUpload(db, orgId, kept.upload_id)).length).to.equal(60);
  });
});
