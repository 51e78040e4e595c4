import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { inboxDuplicatesResponseSchema } from '../../shared/schemas/inbox-duplicates.js';
import { ajv } from '../../shared/schemas/validator.js';
import { Books } from '../helpers/books.js';
import type { DuplicatesPageData } from '../helpers/answers.js';
import { call, type Answer } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';

const PATH = '/api/v1/cli/bookkeeping/inbox/duplicates';
const validData = ajv.compile(inboxDuplicatesResponseSchema);

const at = (day: number, hour = 8): string =>
  `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;
const sha = (label: string): string => createHash('sha256').update(label).digest('hex');
/** §5.4: `grp_` + the first 16 hex digits of SHA-256 of the member ids sorted by code unit, joined with `\n`. */
const groupId = (...ids: string[]): string =>
  `grp_${createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16)}`;
const reason = (rule: string, with_document_id: string) => ({
  rule,
  with_document_id,
  confidence: { same_file: 1, same_invoice_number: 0.95, same_amount_date_vendor: 0.8 }[rule],
});

/** A page of the overview; a null value (a last page's cursor) is sent as the text `null`, as URLSearchParams would. */
function list(token: string, query: Record<string, string | number | null> = {}): Promise<Answer<DuplicatesPageData>> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return call<DuplicatesPageData>('GET', qs ? `${PATH}?${qs}` : PATH, { token });
}

/** Follows next_cursor from the first page until null; every page's group ids, in order. */
async function walk(token: string, query: Record<string, string | number | null>): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const res = await list(token, cursor === null ? query : { ...query, cursor });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    pages.push(res.body.data.groups.map((g: { group_id: string }) => g.group_id));
    cursor = res.body.data.next_cursor;
    expect(pages.length, 'too many pages').to.be.below(50);
  } while (cursor !== null);
  return pages;
}

/**
 * An inbox with six reported groups, one for each way documents meet, newest
 * group first: g6 (file, open + booked), g5 (amount/date/vendor by name), g4
 * (a chain: file then invoice number), g3 (amount/date/vendor by tax id, 3
 * days apart), g2 (invoice number, a booked canonical), g1 (file). Around them
 * what must never be reported: an archived copy, a booked-only pair, a
 * document 4 days from its look-alike, and lone documents.
 */
function sixGroups(books: Books) {
  const d = (fields: Parameters<Books['doc']>[0]) => books.doc(fields);
  const g1 = [d({ received_at: at(1), file: file('g1') }), d({ received_at: at(2), file: file('g1') })];
  d({ received_at: at(2, 9), status: 'archived', file: file('g1') });
  const g2 = [
    d({ received_at: at(3), extracted: { vendor_name: 'Müller  GmbH.', invoice_number: 'RE-0042' } }),
    d({ received_at: at(4), status: 'booked', extracted: { vendor_name: 'MÜLLER GMBH', invoice_number: 're 0042' } }),
  ];
  const g3 = [
    d({
      received_at: at(5),
      extracted: { vendor_tax_id: 'DE 123', total_minor: 11_900, currency: 'EUR', invoice_date: '2026-02-01' },
    }),
    d({
      received_at: at(6),
      extracted: { vendor_tax_id: 'de-123', total_minor: 11_900, currency: 'EUR', invoice_date: '2026-02-04' },
    }),
  ];
  // 4 days after the second of g3: not a duplicate of it.
  d({
    received_at: at(6, 9),
    extracted: { vendor_tax_id: 'DE123', total_minor: 11_900, currency: 'EUR', invoice_date: '2026-02-08' },
  });
  const g4 = [
    d({ received_at: at(7), file: file('g4') }),
    d({ received_at: at(7, 9), file: file('g4'), extracted: { vendor_name: 'Acme Ltd', invoice_number: 'A-1' } }),
    d({ received_at: at(7, 10), extracted: { vendor_name: 'ACME', invoice_number: 'a1' } }),
  ];
  const g5 = [
    d({
      received_at: at(8),
      extracted: { vendor_name: 'Papier & Co', total_minor: 5_000, currency: 'EUR', invoice_date: '2026-02-10' },
    }),
    d({
      received_at: at(9),
      extracted: { vendor_name: 'papier co', total_minor: 5_000, currency: 'EUR', invoice_date: '2026-02-10' },
    }),
  ];
  d({ received_at: at(10), status: 'booked', file: file('booked-only') });
  d({ received_at: at(10, 9), status: 'booked', file: file('booked-only') });
  const g6 = [
    d({ received_at: at(11), status: 'booked', file: file('g6') }),
    d({ received_at: at(12), file: file('g6') }),
  ];
  d({ received_at: at(13), extracted: { vendor_name: 'Lonely GmbH', invoice_number: '7' } });
  return { g1, g2, g3, g4, g5, g6 };
}

function file(label: string) {
  return { sha256: sha(label), name: `${label}.pdf`, size: 1000, mime: 'application/pdf' };
}

async function sixGroupInbox() {
  const books = new Books();
  const groups = sixGroups(books);
  const s = await stack();
  await s.load(books.file);
  const token = await s.token(books.orgId, ['inbox:read']);
  const ids = Object.fromEntries(
    Object.entries(groups).map(([name, members]) => [name, groupId(...members)]),
  ) as Record<keyof typeof groups, string>;
  return { books, token, groups, ids, newestFirst: [ids.g6, ids.g5, ids.g4, ids.g3, ids.g2, ids.g1] };
}

describe('GET /bookkeeping/inbox/duplicates', () => {
  it("lists the groups in the §5.5 shape, newest group first, through the worker; each member carries its document's file and extracted fields", async () => {
    const {
      books,
      token,
      groups: { g1, g2, g3, g4, g5, g6 },
      ids,
    } = await sixGroupInbox();
    const res = await list(token);

    expect(res.status).to.equal(200);
    expect(res.body).to.include({ ok: true, api_version: 'v1', operation: 'inbox_duplicates.list' });
    expect(res.headers.get('x-request-id')).to.equal(res.body.request_id);
    expect(res.body.warnings).to.deep.equal([]);
    expect(validData(res.body.data), JSON.stringify(validData.errors)).to.equal(true);
    const details = (id: string) => {
      const d = books.file.inbox_documents.find((x) => x.id === id)!;
      return { file: { name: d.file.name, mime: d.file.mime, size: d.file.size }, extracted: d.extracted };
    };
    const doc = (id: string, role: string, status: string, received_at: string, reasons: object[]) => ({
      document_id: id,
      role,
      status,
      received_at,
      ...details(id),
      reasons,
    });
    expect(res.body.data).to.deep.equal({
      groups: [
        {
          group_id: ids.g6,
          confidence: 1,
          canonical_document_id: g6[0],
          documents: [
            doc(g6[0]!, 'canonical', 'booked', at(11), [reason('same_file', g6[1]!)]),
            doc(g6[1]!, 'duplicate', 'open', at(12), [reason('same_file', g6[0]!)]),
          ],
        },
        {
          group_id: ids.g5,
          confidence: 0.8,
          canonical_document_id: g5[0],
          documents: [
            doc(g5[0]!, 'canonical', 'open', at(8), [reason('same_amount_date_vendor', g5[1]!)]),
            doc(g5[1]!, 'duplicate', 'open', at(9), [reason('same_amount_date_vendor', g5[0]!)]),
          ],
        },
        {
          group_id: ids.g4,
          confidence: 0.95,
          canonical_document_id: g4[0],
          documents: [
            doc(g4[0]!, 'canonical', 'open', at(7), [reason('same_file', g4[1]!)]),
            doc(g4[1]!, 'duplicate', 'open', at(7, 9), [
              reason('same_file', g4[0]!),
              reason('same_invoice_number', g4[2]!),
            ]),
            doc(g4[2]!, 'duplicate', 'open', at(7, 10), [reason('same_invoice_number', g4[1]!)]),
          ],
        },
        {
          group_id: ids.g3,
          confidence: 0.8,
          canonical_document_id: g3[0],
          documents: [
            doc(g3[0]!, 'canonical', 'open', at(5), [reason('same_amount_date_vendor', g3[1]!)]),
            doc(g3[1]!, 'duplicate', 'open', at(6), [reason('same_amount_date_vendor', g3[0]!)]),
          ],
        },
        {
          // The booked document is canonical although the open one came first.
          group_id: ids.g2,
          confidence: 0.95,
          canonical_document_id: g2[1],
          documents: [
            doc(g2[1]!, 'canonical', 'booked', at(4), [reason('same_invoice_number', g2[0]!)]),
            doc(g2[0]!, 'duplicate', 'open', at(3), [reason('same_invoice_number', g2[1]!)]),
          ],
        },
        {
          group_id: ids.g1,
          confidence: 1,
          canonical_document_id: g1[0],
          documents: [
            doc(g1[0]!, 'canonical', 'open', at(1), [reason('same_file', g1[1]!)]),
            doc(g1[1]!, 'duplicate', 'open', at(2), [reason('same_file', g1[0]!)]),
          ],
        },
      ],
      next_cursor: null,
    });

    // The grouping ran in the worker, logged under this request's id.
    const s = await stack();
    const line = await eventually(() =>
      s.workerLogs.find((l) => l.includes(res.body.request_id) && l.includes('read job finished')),
    );
    expect(JSON.parse(line)).to.include({ operation: 'inbox_duplicates.list', request_id: res.body.request_id });
  });

  it('reads a stored page in the API: only the first read of an inbox version runs a read job in the worker', async () => {
    const s = await stack();
    const books = new Books();
    const { g6 } = sixGroups(books);
    await s.load(books.file);
    const token = await s.token(books.orgId, ['inbox:read']);
    const ranInWorker = (requestId: string): string | undefined =>
      s.workerLogs.find((l) => l.includes(requestId) && l.includes('read job finished'));

    const first = await list(token, { limit: 2 });
    expect(first.status).to.equal(200);
    expect(await eventually(() => ranInWorker(first.body.request_id)), 'the first read computes in the worker').to.be.a(
      'string',
    );
    const again = await list(token, { limit: 2 });
    const next = await list(token, { limit: 2, cursor: first.body.data.next_cursor });
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(next.status).to.equal(200);
    expect(next.body.data.groups).to.have.length(2);

    // A new import makes a new version: its first read goes to the worker again, and shows the new newest group.
    const pair = [
      books.doc({ received_at: at(20), file: file('new') }),
      books.doc({ received_at: at(21), file: file('new') }),
    ];
    await s.load(books.file);
    const after = await list(token, { limit: 2 });
    expect(after.body.data.groups[0]?.group_id).to.equal(groupId(...pair));
    expect(after.body.data.groups[1]?.group_id).to.equal(groupId(...g6));
    expect(
      await eventually(() => ranInWorker(after.body.request_id)),
      'the first read of the new version computes',
    ).to.be.a('string');
    // Logged in order: the stored reads before it would have been logged by now had they run in the worker.
    expect(ranInWorker(again.body.request_id), 'a stored page is read by the API').to.equal(undefined);
    expect(ranInWorker(next.body.request_id), 'a stored next page is read by the API').to.equal(undefined);
  });

  it('answers an empty page for an inbox without duplicates', async () => {
    const books = new Books();
    books.doc();
    books.doc({ status: 'archived' });
    const s = await stack();
    await s.load(books.file);
    const res = await list(await s.token(books.orgId, ['inbox:read']));
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ groups: [], next_cursor: null });
  });

  describe('paging', () => {
    for (const limit of [1, 2]) {
      it(`walks every group exactly once with limit ${limit}, following next_cursor until null`, async () => {
        const { token, newestFirst } = await sixGroupInbox();
        const pages = await walk(token, { limit });
        expect(pages.flat()).to.deep.equal(newestFirst);
        expect(pages.map((p) => p.length)).to.deep.equal(limit === 1 ? [1, 1, 1, 1, 1, 1] : [2, 2, 2]);
      });
    }

    it('pages 50 groups by default and up to 200 on request', async () => {
      const books = new Books();
      for (let i = 0; i < 51; i++) {
        books.doc({ received_at: at(1 + (i % 28), i % 24), file: file(`${books.uid}-${i}`) });
        books.doc({ received_at: at(1 + (i % 28), i % 24), file: file(`${books.uid}-${i}`) });
      }
      const s = await stack();
      await s.load(books.file);
      const token = await s.token(books.orgId, ['inbox:read']);

      const first = await list(token);
      expect(first.body.data.groups).to.have.length(50);
      expect(first.body.data.next_cursor).to.be.a('string');
      const second = await list(token, { cursor: first.body.data.next_cursor });
      expect(second.body.data.groups).to.have.length(1);
      expect(second.body.data.next_cursor).to.equal(null);
      const all = await list(token, { limit: 200 });
      expect(all.body.data.groups).to.have.length(51);
      expect(all.body.data.next_cursor).to.equal(null);
    });

    it('gives the same page and the same cursor while the inbox does not change', async () => {
      const { token } = await sixGroupInbox();
      const a = await list(token, { limit: 2 });
      const b = await list(token, { limit: 2 });
      expect(b.body.data).to.deep.equal(a.body.data);
      const nextA = await list(token, { limit: 2, cursor: a.body.data.next_cursor });
      const nextB = await list(token, { limit: 2, cursor: b.body.data.next_cursor });
      expect(nextB.body.data).to.deep.equal(nextA.body.data);
    });

    it("continues after the cursor's position when a newer group appears between pages", async () => {
      const { books, token, newestFirst } = await sixGroupInbox();
      const first = await list(token, { limit: 2 });
      expect(first.body.data.groups.map((g: { group_id: string }) => g.group_id)).to.deep.equal(
        newestFirst.slice(0, 2),
      );
      const newest = [
        books.doc({ received_at: at(20), file: file('late') }),
        books.doc({ received_at: at(21), file: file('late') }),
      ];
      await (await stack()).load(books.file);

      const rest = await walk(token, { limit: 2, cursor: first.body.data.next_cursor });
      expect(rest.flat()).to.deep.equal(newestFirst.slice(2));
      expect((await list(token, { limit: 1 })).body.data.groups[0]?.group_id).to.equal(groupId(...newest));
    });
  });

  describe('min_confidence', () => {
    it('keeps only groups whose confidence is at least min_confidence', async () => {
      const { token, ids } = await sixGroupInbox();
      const groupIds = async (min: number | string) =>
        (await list(token, { min_confidence: min })).body.data.groups.map((g: { group_id: string }) => g.group_id);
      expect(await groupIds(1)).to.deep.equal([ids.g6, ids.g1]);
      expect(await groupIds(0.95)).to.deep.equal([ids.g6, ids.g4, ids.g2, ids.g1]);
      expect(await groupIds('0.96')).to.deep.equal([ids.g6, ids.g1]);
      expect(await groupIds(0.8)).to.deep.equal([ids.g6, ids.g5, ids.g4, ids.g3, ids.g2, ids.g1]);
      expect(await groupIds(0)).to.deep.equal([ids.g6, ids.g5, ids.g4, ids.g3, ids.g2, ids.g1]);
    });

    it('pages through the filtered groups only', async () => {
      const { token, ids } = await sixGroupInbox();
      const pages = await walk(token, { limit: 1, min_confidence: 0.9 });
      expect(pages).to.deep.equal([[ids.g6], [ids.g4], [ids.g2], [ids.g1]]);
    });

    it('refuses a cursor with another min_confidence than it was issued for: 400 invalid_cursor', async () => {
      const { token } = await sixGroupInbox();
      const cursor = (await list(token, { limit: 1, min_confidence: 0.9 })).body.data.next_cursor;
      expect((await list(token, { limit: 1, min_confidence: 0.9, cursor })).status).to.equal(200);
      expect((await list(token, { limit: 1, min_confidence: '0.90', cursor })).status).to.equal(200);
      for (const other of [{ min_confidence: 0.8 }, {}] as Array<Record<string, number>>) {
        const res = await list(token, { limit: 1, ...other, cursor });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.include({ code: 'invalid_cursor', retryable: false });
      }
    });
  });

  describe('organisations', () => {
    it("never shows another organisation's documents, even with the same files and invoice numbers", async () => {
      const mine = await sixGroupInbox();
      const theirs = new Books();
      theirs.doc({ received_at: at(28), file: file('g1') });
      theirs.doc({ received_at: at(28), file: file('g6') });
      theirs.doc({ received_at: at(28), extracted: { vendor_name: 'Müller GmbH', invoice_number: 'RE-0042' } });
      const theirGroups = sixGroups(theirs);
      await (await stack()).load(theirs.file);
      const theirIds = new Set(theirs.file.inbox_documents.map((d) => d.id));

      const res = await list(mine.token, { limit: 200 });
      expect(res.status).to.equal(200);
      const seen = res.body.data.groups.flatMap(
        (g: { documents: Array<{ document_id: string; reasons: Array<{ with_document_id: string }> }> }) =>
          g.documents.flatMap((d) => [d.document_id, ...d.reasons.map((r) => r.with_document_id)]),
      );
      expect(seen.filter((id: string) => theirIds.has(id))).to.deep.equal([]);
      expect(res.body.data.groups.map((g: { group_id: string }) => g.group_id)).to.deep.equal(mine.newestFirst);
      expect(res.body.data.groups.map((g: { documents: unknown[] }) => g.documents.length)).to.deep.equal([
        2, 2, 3, 2, 2, 2,
      ]);

      // And they see their own, unaffected by ours.
      const theirToken = await (await stack()).token(theirs.orgId, ['inbox:read']);
      const theirRes = await list(theirToken, { limit: 200 });
      expect(theirRes.body.data.groups.map((g: { group_id: string }) => g.group_id)).to.include(
        groupId(...theirGroups.g4),
      );
    });

    it('refuses a cursor issued to another organisation: 400 invalid_cursor', async () => {
      const mine = await sixGroupInbox();
      const theirs = await sixGroupInbox();
      const theirCursor = (await list(theirs.token, { limit: 1 })).body.data.next_cursor;
      expect(theirCursor).to.be.a('string');
      expect((await list(theirs.token, { limit: 1, cursor: theirCursor })).status).to.equal(200);

      const res = await list(mine.token, { limit: 1, cursor: theirCursor });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ ok: false, operation: 'inbox_duplicates.list' });
      expect(res.body.error).to.include({ code: 'invalid_cursor', status: 400, retryable: false });
    });
  });

  describe('refused cursors', () => {
    it('refuses a tampered cursor: 400 invalid_cursor', async () => {
      const { token, ids } = await sixGroupInbox();
      const cursor = (await list(token, { limit: 1 })).body.data.next_cursor!;
      const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
      expect(decoded).to.include(ids.g6);
      // A well-formed cursor pointing elsewhere, with the original signature.
      const moved = Buffer.from(decoded.replace(ids.g6, ids.g1), 'utf8').toString('base64url');
      const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
      for (const bad of [moved, flipped, `${cursor}A`, 'not-a-cursor', Buffer.from('{"v":1}').toString('base64url')]) {
        const res = await list(token, { limit: 1, cursor: bad });
        expect(res.status, bad).to.equal(400);
        expect(res.body.error.code, bad).to.equal('invalid_cursor');
      }
    });
  });

  describe('query validation', () => {
    const invalid = async (query: string, pointer: string) => {
      const { token } = await shared();
      const res = await call('GET', `${PATH}?${query}`, { token });
      expect(res.status, query).to.equal(400);
      expect(res.body.error.code, query).to.equal('validation_failed');
      expect(
        res.body.error.errors.map((e: { pointer: string }) => e.pointer),
        query,
      ).to.deep.equal([pointer]);
    };

    it('refuses limit 0, 201, 1.5, "abc", empty and repeated: 400 with pointer /query/limit', async () => {
      for (const q of ['limit=0', 'limit=201', 'limit=1.5', 'limit=abc', 'limit=', 'limit=1&limit=2', 'limit=-1'])
        await invalid(q, '/query/limit');
    });

    it('accepts limit 1 and 200', async () => {
      const { token } = await shared();
      for (const limit of [1, 200]) expect((await list(token, { limit })).status).to.equal(200);
    });

    it('refuses min_confidence outside 0–1 or not a number: 400 with pointer /query/min_confidence', async () => {
      for (const q of ['min_confidence=1.01', 'min_confidence=-0.1', 'min_confidence=high', 'min_confidence=Infinity'])
        await invalid(q, '/query/min_confidence');
    });

    it('refuses a cursor longer than 512 characters: 400 with pointer /query/cursor', async () => {
      await invalid(`cursor=${'A'.repeat(513)}`, '/query/cursor');
    });

    it('refuses an unknown query parameter: 400 with its pointer', async () => {
      await invalid('limt=5', '/query/limt');
    });

    it('lists every problem at once', async () => {
      const { token } = await shared();
      const res = await call('GET', `${PATH}?limit=0&min_confidence=2&sort=asc`, { token });
      expect(res.status).to.equal(400);
      expect(res.body.error.errors.map((e: { pointer: string }) => e.pointer).sort()).to.deep.equal([
        '/query/limit',
        '/query/min_confidence',
        '/query/sort',
      ]);
    });
  });

  describe('authentication', () => {
    it('answers 401 unauthenticated without a token', async () => {
      const res = await call('GET', PATH);
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ ok: false, operation: 'inbox_duplicates.list' });
      expect(res.body.error.code).to.equal('unauthenticated');
    });

    it('answers 401 unauthenticated for an unknown token', async () => {
      const res = await call('GET', PATH, { token: 'bst_not-a-real-token' });
      expect(res.status).to.equal(401);
    });

    it('answers 403 forbidden for a token without inbox:read', async () => {
      const { books } = await shared();
      const token = await (await stack()).token(books.orgId, ['ledger:stage', 'bank:stage', 'staged:read']);
      const res = await call('GET', PATH, { token });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.include({ code: 'forbidden' });
      expect(res.body.error.details).to.deep.equal({ required_scope: 'inbox:read' });
    });
  });
});

let sharedInbox: ReturnType<typeof sixGroupInbox> | null = null;
/** One inbox for tests that only need a valid token. */
function shared(): ReturnType<typeof sixGroupInbox> {
  sharedInbox ??= sixGroupInbox();
  return sharedInbox;
}

async function eventually<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
