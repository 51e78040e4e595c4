// The chunked (materialized) duplicate overview answers exactly the pages
// pageGroups cuts from the whole list: same groups, same order, same
// next_after, for every cursor position, min_confidence and limit, also when
// groups are split across chunks.
import { expect } from 'chai';
import fc from 'fast-check';
import type { InboxDocument } from '../../shared/domain/books.js';
import {
  compareGroupPositions,
  findDuplicateGroups,
  groupPosition,
  pageGroups,
  type DuplicateGroup,
  type GroupPage,
  type GroupPosition,
} from '../../shared/domain/duplicate-groups.js';
import {
  chunkGroups,
  firstChunkAfter,
  pageFromChunks,
  withDocumentDetails,
  type ChunkLimits,
  type GroupPiece,
} from '../../shared/domain/duplicate-overview.js';

function doc(
  id: string,
  minute: number,
  fields: {
    sha?: string;
    invoice?: string;
    vendor?: string;
    total?: number;
    date?: string;
    status?: 'open' | 'booked' | 'archived';
  },
): InboxDocument {
  const extracted: InboxDocument['extracted'] = { currency: 'EUR' };
  if (fields.invoice !== undefined) extracted.invoice_number = fields.invoice;
  if (fields.vendor !== undefined) extracted.vendor_name = fields.vendor;
  if (fields.total !== undefined) extracted.total_minor = fields.total;
  if (fields.date !== undefined) extracted.invoice_date = fields.date;
  return {
    id,
    received_at: new Date(Date.UTC(2026, 2, 1, 0, minute)).toISOString(),
    source: 'email',
    status: fields.status ?? 'open',
    file: { sha256: fields.sha ?? `own-${id}`, name: `${id}.pdf`, size: 1, mime: 'application/pdf' },
    extracted,
  };
}

/** Every page of the chunked listing, read the way the store reads it, with the number of chunk loads. */
async function chunkedPage(
  groups: readonly DuplicateGroup[],
  limits: ChunkLimits,
  options: Parameters<typeof pageGroups>[1],
): Promise<{ page: GroupPage | null; loads: number[] }> {
  const { chunks, index } = chunkGroups(groups, limits);
  const loads: number[] = [];
  // A round trip through JSON, as through the store: no shared objects.
  const stored = JSON.parse(JSON.stringify(chunks)) as GroupPiece[][];
  const page = await pageFromChunks(index, options, (n) => {
    loads.push(n);
    return Promise.resolve(stored[n] ?? null);
  });
  return { page, loads };
}

/** Positions worth starting after: none, every group's own, and one just after each (not a group's). */
function positionsOf(groups: readonly DuplicateGroup[]): Array<GroupPosition | null> {
  const out: Array<GroupPosition | null> = [null];
  for (const g of groups) {
    const p = groupPosition(g);
    out.push(p, { newest_received_at: p.newest_received_at, group_id: `${p.group_id}~` });
  }
  out.push({ newest_received_at: '1970-01-01T00:00:00.000Z', group_id: 'grp_' });
  return out;
}

describe('materialized duplicate overview (chunks)', () => {
  // Five groups: g1 same file (1.0), g2 invoice (0.95), g3 amount/date/vendor (0.8), g4 file, g5 invoice.
  const inbox = [
    doc('a1', 50, { sha: 'F1' }),
    doc('a2', 49, { sha: 'F1' }),
    doc('b1', 40, { invoice: 'R-1', vendor: 'Beta' }),
    doc('b2', 41, { invoice: 'r 1', vendor: 'BETA' }),
    doc('c1', 30, { vendor: 'Gamma', total: 500, date: '2026-02-01' }),
    doc('c2', 31, { vendor: 'Gamma', total: 500, date: '2026-02-03' }),
    doc('d1', 20, { sha: 'F2' }),
    doc('d2', 21, { sha: 'F2' }),
    doc('d3', 22, { sha: 'F2', status: 'booked' }),
    doc('e1', 10, { invoice: 'X-9', vendor: 'Eps' }),
    doc('e2', 11, { invoice: 'X-9', vendor: 'Eps' }),
    doc('lone', 5, {}),
  ];
  const groups = findDuplicateGroups(inbox);

  it('cuts the listing into chunks in order, each summarised by its last position and highest confidence', () => {
    expect(groups.map((g) => [g.canonical_document_id, g.confidence])).to.deep.equal([
      ['a2', 1],
      ['b1', 0.95],
      ['c1', 0.8],
      ['d3', 1],
      ['e1', 0.95],
    ]);
    const { chunks, index } = chunkGroups(groups, { maxGroups: 2, maxBytes: 1 << 20 });
    expect(chunks.map((c) => c.map((p) => [p.group.canonical_document_id, p.part, p.more]))).to.deep.equal([
      [
        ['a2', 0, false],
        ['b1', 0, false],
      ],
      [
        ['c1', 0, false],
        ['d3', 0, false],
      ],
      [['e1', 0, false]],
    ]);
    expect(index).to.deep.equal([
      { n: 0, last: groupPosition(groups[1]!), max_confidence: 1 },
      { n: 1, last: groupPosition(groups[3]!), max_confidence: 1 },
      { n: 2, last: groupPosition(groups[4]!), max_confidence: 0.95 },
    ]);
    expect(firstChunkAfter(index, null)).to.equal(0);
    expect(firstChunkAfter(index, groupPosition(groups[1]!))).to.equal(1);
    expect(firstChunkAfter(index, groupPosition(groups[2]!))).to.equal(1);
    expect(firstChunkAfter(index, groupPosition(groups[4]!))).to.equal(3);
    expect(chunkGroups([], { maxGroups: 2, maxBytes: 1000 })).to.deep.equal({ chunks: [], index: [] });
  });

  it('splits a group bigger than a chunk into pieces and joins them back whole', async () => {
    const big = findDuplicateGroups(
      Array.from({ length: 30 }, (_, i) => doc(`big${String(i).padStart(2, '0')}`, i, { sha: 'SAME' })),
    );
    expect(big).to.have.length(1);
    const limits = { maxGroups: 10, maxBytes: 1500 };
    const { chunks, index } = chunkGroups([...groups.slice(0, 2), ...big, ...groups.slice(2)], limits);
    const bigPieces = chunks.flat().filter((p) => p.group.group_id === big[0]!.group_id);
    expect(bigPieces.length).to.be.greaterThan(2);
    expect(bigPieces.map((p) => p.part)).to.deep.equal(bigPieces.map((_, i) => i));
    expect(bigPieces.map((p) => p.more)).to.deep.equal(bigPieces.map((_, i) => i < bigPieces.length - 1));
    expect(bigPieces.flatMap((p) => p.group.documents)).to.deep.equal(big[0]!.documents);
    for (const chunk of chunks) expect(JSON.stringify(chunk).length).to.be.at.most(limits.maxBytes * 2);
    expect(index).to.have.length(chunks.length);
    const all = [...groups.slice(0, 2), ...big, ...groups.slice(2)];
    const { page } = await chunkedPage(all, limits, { limit: 50 });
    expect(page).to.deep.equal(pageGroups(all, { limit: 50 }));
  });

  it('reads only the chunks a page needs (and the next one, fetched ahead): from the cursor on, skipping chunks below min_confidence', async () => {
    const limits = { maxGroups: 1, maxBytes: 1 << 20 };
    expect((await chunkedPage(groups, limits, { limit: 1 })).loads).to.deep.equal([0, 1, 2]);
    expect((await chunkedPage(groups, limits, { limit: 1, after: groupPosition(groups[2]!) })).loads).to.deep.equal([
      3, 4,
    ]);
    // Only groups 0 and 3 have confidence 1: chunks 1, 2 and 4 are never read.
    const strict = await chunkedPage(groups, limits, { limit: 5, min_confidence: 1 });
    expect(strict.loads).to.deep.equal([0, 3]);
    expect(strict.page).to.deep.equal({ groups: [groups[0], groups[3]], next_after: null });
  });

  it('answers null when a chunk is gone (cleaned up by a newer version)', async () => {
    const { index } = chunkGroups(groups, { maxGroups: 2, maxBytes: 1 << 20 });
    expect(await pageFromChunks(index, { limit: 10 }, () => Promise.resolve(null))).to.equal(null);
  });

  it('equals pageGroups over the whole list for every position, limit, min_confidence and chunk size (property)', async () => {
    const specArb = fc.record({
      minute: fc.integer({ min: 0, max: 40 }),
      sha: fc.option(fc.constantFrom('F1', 'F2', 'F3', 'F4'), { nil: undefined }),
      invoice: fc.option(fc.constantFrom('1', '2', '3', '4', '5'), { nil: undefined }),
      vendor: fc.constantFrom('V1', 'V2'),
      total: fc.constantFrom(100, 200),
      day: fc.integer({ min: 1, max: 9 }),
      status: fc.constantFrom<'open' | 'booked' | 'archived'>('open', 'open', 'booked', 'archived'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(specArb, { maxLength: 40 }),
        fc.record({ maxGroups: fc.integer({ min: 1, max: 4 }), maxBytes: fc.constantFrom(300, 800, 1 << 20) }),
        async (specs, limits) => {
          const docs = specs.map((s, i) => doc(`d${i}`, s.minute, { ...s, date: `2026-02-0${s.day}` }));
          const all = findDuplicateGroups(docs);
          for (const after of positionsOf(all)) {
            for (const min_confidence of [null, 0.8, 0.9, 0.95, 1]) {
              for (const limit of [1, 2, 3, 50]) {
                const options = { limit, min_confidence, after };
                const { page } = await chunkedPage(all, limits, options);
                expect(page, JSON.stringify(options)).to.deep.equal(pageGroups(all, options));
              }
            }
          }
          // Walking with next_after visits every group once, in order.
          const seen: DuplicateGroup[] = [];
          let after: GroupPosition | null = null;
          for (;;) {
            const { page } = await chunkedPage(all, limits, { limit: 2, after });
            seen.push(...page!.groups);
            if (!page!.next_after) break;
            if (after) expect(compareGroupPositions(page!.next_after, after)).to.be.greaterThan(0);
            after = page!.next_after;
          }
          expect(seen).to.deep.equal(all);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('the overview members carry their documents', () => {
  it("adds each member's file (name, mime, size) and extracted fields, keeping ids, order, roles and reasons", () => {
    const docs = [
      doc('doc_a', 1, { sha: 'x', vendor: 'ACME', total: 500 }),
      doc('doc_b', 2, { sha: 'x' }),
      doc('doc_c', 3, {}),
    ];
    const groups = findDuplicateGroups(docs);
    const detailed = withDocumentDetails(groups, docs);
    expect(detailed).to.deep.equal([
      {
        group_id: groups[0]!.group_id,
        confidence: 1,
        canonical_document_id: 'doc_a',
        documents: [
          {
            document_id: 'doc_a',
            role: 'canonical',
            status: 'open',
            received_at: docs[0]!.received_at,
            file: { name: 'doc_a.pdf', mime: 'application/pdf', size: 1 },
            extracted: { currency: 'EUR', vendor_name: 'ACME', total_minor: 500 },
            reasons: [{ rule: 'same_file', with_document_id: 'doc_b', confidence: 1 }],
          },
          {
            document_id: 'doc_b',
            role: 'duplicate',
            status: 'open',
            received_at: docs[1]!.received_at,
            file: { name: 'doc_b.pdf', mime: 'application/pdf', size: 1 },
            extracted: { currency: 'EUR' },
            reasons: [{ rule: 'same_file', with_document_id: 'doc_a', confidence: 1 }],
          },
        ],
      },
    ]);
    // The page order and positions are the grouping's own.
    expect(detailed.map(groupPosition)).to.deep.equal(groups.map(groupPosition));
  });
});
