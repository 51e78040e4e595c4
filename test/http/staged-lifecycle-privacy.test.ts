import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import type { ReversalData, StagedListData } from '../helpers/answers.js';
import { call, type AnswerBody } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, show, STAGED } from '../helpers/staged.js';

async function orgWithOperations(n: number) {
  const s = await stack();
  const books = new Books();
  const entries = Array.from({ length: n }, () => books.invoice(1_000));
  await s.load(books.file);
  const who = await actors(books.orgId);
  const ids: string[] = [];
  for (const entry of entries) {
    const res = await call<ReversalData>('POST', `/api/v1/cli/ledger/entries/${entry}/reverse/stage`, {
      token: who.alice,
      body: {},
    });
    expect(res.status).to.equal(201);
    ids.push(res.body.data.staged_operation_id);
  }
  return { books, who, ids };
}

/** A refused list answers no `data`: then no ids and no cursor, and the test reads `body.error`. */
const listIds = async (
  token: string,
  query = '',
): Promise<{ status: number; ids: string[]; next: string | null; body: AnswerBody<StagedListData> }> => {
  const res = await call<StagedListData>('GET', `${STAGED}${query}`, { token });
  const data = res.body.data as StagedListData | undefined;
  return {
    status: res.status,
    ids: data?.items.map((i) => i.staged_operation_id) ?? [],
    next: data?.next_cursor ?? null,
    body: res.body,
  };
};

describe('staged operations: who sees what', () => {
  it('list and show as the creator, an approver, another actor without staged:approve, and another org', async () => {
    const { who, ids } = await orgWithOperations(1);
    const id = ids[0]!;
    const other = await orgWithOperations(1);
    const outsider = other.who.bob; // staged:approve, but in another org

    expect((await show(who.alice, id)).status).to.equal(200);
    expect((await show(who.bob, id)).status).to.equal(200);
    for (const token of [who.carol, outsider]) {
      const res = await show(token, id);
      expect(res.status).to.equal(404);
      expect(res.body.error).to.deep.include({ code: 'not_found', details: { resource: 'Staged operation', id } });
    }
    expect((await listIds(who.alice)).ids).to.deep.equal([id]);
    expect((await listIds(who.bob)).ids).to.deep.equal([id]);
    expect((await listIds(who.carol)).ids).to.deep.equal([]);
    expect((await listIds(who.carol, '?created_by=alice')).ids).to.deep.equal([]);
    expect((await listIds(outsider)).ids).to.deep.equal(other.ids);
    // Acting on what one cannot see is 404 too.
    expect((await apply(who.carol, id)).status).to.equal(404);
    expect((await call('POST', `${STAGED}/${id}/approve`, { token: outsider, body: {} })).status).to.equal(404);
  });

  it('needs staged:read to read, staged:approve to approve or reject, staged:apply to apply: 403 forbidden', async () => {
    const { books, ids } = await orgWithOperations(1);
    const stager = await (await stack()).token(books.orgId, ['ledger:stage'], 'frank');
    const res = await show(stager, ids[0]!);
    expect(res.status).to.equal(403);
    expect(res.body.error.details).to.deep.equal({ required_scope: 'staged:read' });
    expect(
      (await call('POST', `${STAGED}/${ids[0]}/approve`, { token: stager, body: {} })).body.error.details,
    ).to.deep.equal({ required_scope: 'staged:approve' });
    expect(
      (await call('POST', `${STAGED}/${ids[0]}/reject`, { token: stager, body: { note: 'x' } })).body.error.details,
    ).to.deep.equal({ required_scope: 'staged:approve' });
    expect((await apply(stager, ids[0]!)).body.error.details).to.deep.equal({ required_scope: 'staged:apply' });
  });

  it('lists newest first, one page at a time, with filters kept by the cursor', async () => {
    const { who, ids } = await orgWithOperations(3);
    const newestFirst = [...ids].reverse();
    const first = await listIds(who.bob, '?limit=2');
    expect(first.ids).to.deep.equal(newestFirst.slice(0, 2));
    expect(first.next).to.be.a('string');
    const second = await listIds(who.bob, `?limit=2&cursor=${first.next}`);
    expect(second.ids).to.deep.equal(newestFirst.slice(2));
    expect(second.next).to.equal(null);

    await call('POST', `${STAGED}/${ids[1]}/reject`, { token: who.bob, body: { note: 'no' } });
    expect((await listIds(who.bob, '?status=rejected')).ids).to.deep.equal([ids[1]]);
    expect((await listIds(who.bob, '?status=staged&kind=ledger_reversal&created_by=alice')).ids).to.deep.equal([
      ids[2],
      ids[0],
    ]);
    expect((await listIds(who.bob, '?kind=bank_reconcile')).ids).to.deep.equal([]);

    const wrongFilter = await listIds(who.bob, `?limit=2&status=staged&cursor=${first.next}`);
    expect(wrongFilter.status).to.equal(400);
    expect(wrongFilter.body.error.code).to.equal('invalid_cursor');
    const bad = await listIds(who.bob, '?status=done&limit=0');
    expect(bad.status).to.equal(400);
    expect(bad.body.error.errors.map((e: { pointer: string }) => e.pointer).sort()).to.deep.equal([
      '/query/limit',
      '/query/status',
    ]);
  });
});
