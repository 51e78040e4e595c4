// The kept figures of an organisation as a test compares them
// (docs/reference/book-reads.md "Kept figures"): by `_id`, without what says
// who wrote a document when.
import type { Db, Document } from 'mongodb';
import { BOOK_FIGURES, rebuildFigures } from '../../shared/storage/book-figures.js';

/** Every figure of the organisation by `_id`, without its rev, seq, basis, stale and build. */
export async function kept(db: Db, orgId: string): Promise<Record<string, Document>> {
  const docs = await db.collection(BOOK_FIGURES).find({ org_id: orgId }).toArray();
  return Object.fromEntries(
    docs
      .filter((d) => d.kind !== 'org')
      .map((d) => {
        const { rev: _r, seq: _s, basis: _b, stale: _st, build: _bu, ...rest } = d;
        return [String(d._id), rest];
      }),
  );
}

/** What one whole build makes of the books as they are now. */
export async function built(db: Db, orgId: string): Promise<Record<string, Document>> {
  await rebuildFigures(db, orgId);
  return kept(db, orgId);
}
