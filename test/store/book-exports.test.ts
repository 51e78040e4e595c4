// A books export on its way from the worker to the API (shared/storage/book-exports.ts):
// parts that join to the file, its length and SHA-256, organisation-bound reads,
// and the sweep after the hour.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { EXPORT_KEEP_MS, readExportPart, saveExport, sweepBookExports } from '../../shared/storage/book-exports.js';
import { stack } from '../helpers/stack.js';

describe('books export parts in the store', () => {
  const org = `org_${randomBytes(4).toString('hex')}`;
  const lines = ['; first', 'ä line with ünïcode', '', ...Array.from({ length: 40 }, (_, i) => `line ${i}`)];
  const file = lines.map((l) => `${l}\n`).join('');

  it('stores the lines in parts that join to the file, with its byte length and SHA-256', async () => {
    const { db } = await stack();
    const stored = await saveExport(db, org, lines, new Date(), 64);
    expect(stored.parts).to.be.greaterThan(3);
    expect(stored.bytes).to.equal(Buffer.byteLength(file));
    expect(stored.sha256).to.equal(createHash('sha256').update(file).digest('hex'));
    const parts: string[] = [];
    for (let part = 0; part < stored.parts; part += 1)
      parts.push((await readExportPart(db, org, stored.export_id, part))!);
    expect(parts.join('')).to.equal(file);
    for (const text of parts.slice(0, -1)) expect(text.length).to.be.at.least(64);
  });

  it("an empty export is one empty part; another organisation's read finds nothing", async () => {
    const { db } = await stack();
    const empty = await saveExport(db, org, []);
    expect(empty).to.include({ parts: 1, bytes: 0 });
    expect(await readExportPart(db, org, empty.export_id, 0)).to.equal('');
    expect(await readExportPart(db, 'org_other', empty.export_id, 0)).to.equal(null);
  });

  it('the sweep removes the parts past their hour, not before', async () => {
    const { db } = await stack();
    const now = new Date();
    const stored = await saveExport(db, org, lines, now, 64);
    await sweepBookExports(db, new Date(now.getTime() + EXPORT_KEEP_MS - 1000));
    expect(await readExportPart(db, org, stored.export_id, 0)).to.be.a('string');
    await sweepBookExports(db, new Date(now.getTime() + EXPORT_KEEP_MS + 1000));
    expect(await readExportPart(db, org, stored.export_id, 0)).to.equal(null);
  });
});
