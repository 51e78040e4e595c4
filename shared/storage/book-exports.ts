// A books export on its way from the worker to the API (docs/reference/book-reads.md
// "Export"): the worker writes the file here in parts as it is made, the job's
// answer names them, and the API streams them one by one, so neither Redis nor
// either process holds the whole file. Parts are kept for an hour, then
// removed by the maintenance sweep.
import { createHash, randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections } from './collections.js';

export const EXPORT_KEEP_MS = 60 * 60 * 1000;
/** Characters per part: far below a document's 16 MiB in any encoding. */
export const EXPORT_PART_CHARS = 1 << 20;

export interface StoredExport {
  export_id: string;
  parts: number;
  bytes: number;
  sha256: string;
}

/** Store the lines (each ends with a newline) in parts; answer what names them. */
export async function saveExport(
  db: Db,
  orgId: string,
  lines: Iterable<string>,
  now = new Date(),
  partChars = EXPORT_PART_CHARS,
): Promise<StoredExport> {
  const c = collections(db).bookExports;
  const exportId = `exp_${randomUUID()}`;
  const expiresAt = new Date(now.getTime() + EXPORT_KEEP_MS).toISOString();
  const hash = createHash('sha256');
  let bytes = 0;
  let part = 0;
  let chunk: string[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    const text = chunk.join('');
    await c.insertOne({
      _id: `${exportId}/${part}`,
      org_id: orgId,
      export_id: exportId,
      part,
      text,
      expires_at: expiresAt,
    });
    part += 1;
    chunk = [];
    chars = 0;
  };
  for (const line of lines) {
    const text = `${line}\n`;
    hash.update(text);
    bytes += Buffer.byteLength(text);
    chunk.push(text);
    chars += text.length;
    if (chars >= partChars) await flush();
  }
  if (chars > 0 || part === 0) await flush();
  return { export_id: exportId, parts: part, bytes, sha256: hash.digest('hex') };
}

/** One part's text; null when it is gone (swept) or another organisation's. */
export async function readExportPart(db: Db, orgId: string, exportId: string, part: number): Promise<string | null> {
  const doc = await collections(db).bookExports.findOne({ _id: `${exportId}/${part}`, org_id: orgId });
  return doc?.text ?? null;
}

export async function sweepBookExports(db: Db, now: Date): Promise<number> {
  return (await collections(db).bookExports.deleteMany({ expires_at: { $lt: now.toISOString() } })).deletedCount;
}
