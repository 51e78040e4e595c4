// The duplicate overview is materialized per inbox version
// (docs/design/duplicate-overview.md). Through the real API and worker: every page
// equals the page a fresh grouping of the stored inbox gives, after imports,
// after edits, under concurrent readers, and a result computed before an
// import is never served once that import has finished.
import { expect } from 'chai';
import type { InboxDocument } from '../../shared/domain/books.js';
import {
  findDuplicateGroups,
  pageGroups,
  type DuplicateGroup,
  type GroupPosition,
} from '../../shared/domain/duplicate-groups.js';
import { withDocumentDetails } from '../../shared/domain/duplicate-overview.js';
import { collections } from '../../shared/storage/collections.js';
import { findGroupableInboxDocuments } from '../../shared/storage/inbox-read.js';
import { currentInboxVersion } from '../../shared/storage/inbox-version.js';
import type { DuplicatesPageData } from '../helpers/answers.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { duplicateRichInbox } from '../helpers/inbox.js';
import { stack } from '../helpers/stack.js';

const PATH = '/api/v1/cli/bookkeeping/inbox/duplicates';

/** Every page through the API, following next_cursor. */
async function walkApi(token: string, limit: number, minConfidence?: number): Promise<DuplicateGroup[][]> {
  const pages: DuplicateGroup[][] = [];
  let cursor: string | null = null;
  do {
    const qs: URLSearchParams = new URLSearchParams({
      limit: String(limit),
      ...(minConfidence === undefined ? {} : { min_confidence: String(minConfidence) }),
      ...(cursor ? { cursor } : {}),
    });
    const res: Awaited<ReturnType<typeof call<DuplicatesPageData>>> = await call<DuplicatesPageData>(
      'GET',
      `${PATH}?${qs.toString()}`,
      { token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    pages.push(res.body.data.groups);
    cursor = res.body.data.next_cursor;
    expect(pages.length, 'too many pages').to.be.below(500);
  } while (cursor !== null);
  return pages;
}

/** The same pages from a fresh grouping of what the store holds now (the overview before materializing). */
async function walkFresh(orgId: string, limit: number, minConfidence?: number): Promise<DuplicateGroup[][]> {
  const documents = await findGroupableInboxDocuments((await stack()).db, orgId);
  // The overview's members carry their documents' details (docs/design/duplicate-overview.md "Members").
  const groups = withDocumentDetails(findDuplicateGroups(documents as InboxDocument[]), documents);
  const pages: DuplicateGroup[][] = [];
  let after: GroupPosition | null = null;
  do {
    const page = pageGroups(groups, { limit, min_confidence: minConfidence ?? null, after });
    pages.push(page.groups);
    after = page.next_after;
  } while (after !== null);
  return pages;
}

async function firstPage(token: string): Promise<DuplicateGroup[]> {
  const res = await call<DuplicatesPageData>('GET', `${PATH}?limit=5`, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.groups;
}

describe('materialized duplicate overview (HTTP)', function () {
  this.timeout(180_000);

  it('equals a fresh grouping page by page after an import and after edits, over many chunks', async () => {
    const s = await stack();
    const books = new Books();
    const ids = duplicateRichInbox(books, 700);
    await s.load(books.file);
    const token = await s.token(books.orgId, ['inbox:read']);

    const before = await walkApi(token, 37);
    expect(before.flat().length, 'more groups than one chunk holds (CHUNK_LIMITS.maxGroups)').to.be.greaterThan(100);
    expect(before).to.deep.equal(await walkFresh(books.orgId, 37));
    expect(await walkApi(token, 200, 0.95)).to.deep.equal(await walkFresh(books.orgId, 200, 0.95));

    // Edits: archive some documents, re-number others (groups split, merge and move), add a new newest group.
    // Fewer than 50 changed records per import: FerretDB 1.24 holds one pooled PostgreSQL
    // connection per replaced document until the update command ends, and its pool has 50.
    const docs = books.file.inbox_documents;
    for (const [i, doc] of docs.entries()) {
      if (i % 40 === 0) doc.status = 'archived';
      else if (i % 50 === 7)
        doc.extracted = { ...doc.extracted, invoice_number: `EDITED-${i % 5}`, vendor_name: 'Edited GmbH' };
    }
    const newest = [
      books.doc({ received_at: '2026-06-01T00:00:00.000Z' }),
      books.doc({ received_at: '2026-06-01T00:00:01.000Z' }),
    ];
    const sha = docs.find((d) => d.id === newest[0])!.file.sha256;
    docs.find((d) => d.id === newest[1])!.file = { ...docs.find((d) => d.id === newest[1])!.file, sha256: sha };
    await s.load(books.file);

    const after = await walkApi(token, 37);
    expect(after).to.deep.equal(await walkFresh(books.orgId, 37));
    expect(after).to.not.deep.equal(before);
    expect(after[0]![0]!.documents.map((d) => d.document_id).sort()).to.deep.equal([...newest].sort());
    expect(ids.length).to.equal(700);

    // Only the current version is kept, with exactly its chunks.
    const c = collections(s.db);
    const overviews = await c.duplicateOverviews.find({ org_id: books.orgId }).toArray();
    expect(overviews.map((o) => [o.version, o.state])).to.deep.equal([
      [await currentInboxVersion(s.db, books.orgId), 'ready'],
    ]);
    const chunks = await c.duplicateOverviewChunks
      .find({ org_id: books.orgId }, { projection: { overview_id: 1 } })
      .toArray();
    expect(chunks.length).to.equal(overviews[0]!.chunk_count).and.to.be.greaterThan(1);
    expect(chunks.every((ch) => ch.overview_id === overviews[0]!._id)).to.equal(true);
  });

  it('answers concurrent readers of a new version with the same pages, equal to a fresh grouping', async () => {
    const s = await stack();
    const books = new Books();
    duplicateRichInbox(books, 300, 7);
    await s.load(books.file);
    const token = await s.token(books.orgId, ['inbox:read']);
    const pages = await Promise.all(Array.from({ length: 8 }, () => walkApi(token, 50)));
    const fresh = await walkFresh(books.orgId, 50);
    for (const p of pages) expect(p).to.deep.equal(fresh);
  });

  it('never serves a result from before an import once the import has finished, even while others read', async () => {
    const s = await stack();
    const books = new Books();
    duplicateRichInbox(books, 200, 3);
    await s.load(books.file);
    const token = await s.token(books.orgId, ['inbox:read']);
    await firstPage(token);

    // Readers keep reading (and computing old versions) while the imports run.
    let reading = true;
    const background = Promise.all(
      Array.from({ length: 3 }, async () => {
        while (reading) await firstPage(token);
      }),
    );
    try {
      for (let round = 1; round <= 4; round++) {
        const pair = [
          books.doc({
            received_at: `2026-07-0${round}T00:00:00.000Z`,
            extracted: { vendor_name: 'Round GmbH', invoice_number: `ROUND-${round}` },
          }),
          books.doc({
            received_at: `2026-07-0${round}T00:00:01.000Z`,
            extracted: { vendor_name: 'ROUND GMBH', invoice_number: `round ${round}` },
          }),
        ];
        await s.load(books.file);
        // The import has finished: the newest group must be this round's pair, on the very next read.
        const page = await firstPage(token);
        expect(page[0]!.documents.map((d) => d.document_id).sort(), `round ${round}`).to.deep.equal([...pair].sort());
        expect(page).to.deep.equal((await walkFresh(books.orgId, 5))[0]);
      }
    } finally {
      reading = false;
      await background;
    }
  });
});
