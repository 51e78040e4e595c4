// Resolving an inbox duplicate group, the fifth staged kind (docs/reference/http-api.md
// §10.1), on the real stack: stage → approve → apply.
import { expect } from 'chai';
import type { TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call, type Answer } from '../helpers/http.js';
import { duplicatePair, groupId, PAIR_INVOICE as invoice } from '../helpers/inbox.js';
import { apply, approve, docs, show } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';

interface Group {
  group_id: string;
  documents: Array<{ document_id: string }>;
  dismissed_with?: string[][];
}
interface ResolveData {
  outcome: string;
  staged_operation_id: string;
  status: string;
  plan: Record<string, unknown>;
  plan_hash: string;
}

const OVERVIEW = '/api/v1/cli/bookkeeping/inbox/duplicates';
const resolvePath = (groupId: string): string => `${OVERVIEW}/${groupId}/resolve/stage`;

/** An inbox with one pair that is a duplicate by invoice number (doc a received first), and the actors. */
async function pairInbox() {
  const books = new Books();
  const { a, b, group } = duplicatePair(books);
  const s = await stack();
  await s.load(books.file);
  const stager: TokenScope[] = ['inbox:stage', 'inbox:read', 'staged:read', 'books:read'];
  const alice = await s.token(books.orgId, stager, 'alice');
  const bob = await s.token(
    books.orgId,
    ['staged:read', 'staged:approve', 'staged:apply', 'inbox:read', 'books:read'],
    'bob',
  );
  return { books, a, b, alice, bob, group };
}

async function groups(token: string): Promise<Group[]> {
  const res = await call<{ groups: Group[] }>('GET', `${OVERVIEW}?limit=200`, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.data.groups;
}

const stage = (token: string, group: string, body: unknown): Promise<Answer<ResolveData>> =>
  call<ResolveData>('POST', resolvePath(group), { token, body });

async function stageApproveApply(
  alice: string,
  bob: string,
  group: string,
  body: unknown,
): Promise<{ id: string; applied: Answer<unknown> }> {
  const staged = await stage(alice, group, body);
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  const id = staged.body.data.staged_operation_id;
  expect((await approve(bob, id)).status).to.equal(200);
  return { id, applied: await apply(bob, id) };
}

describe('POST /bookkeeping/inbox/duplicates/{group_id}/resolve/stage', () => {
  it('archive_duplicates: stage → approve → apply archives the other members with their reason; the group is gone from the overview; applying again warns already_applied', async () => {
    const { a, b, alice, bob, group } = await pairInbox();
    expect((await groups(alice)).map((g) => g.group_id)).to.deep.equal([group]);

    const staged = await stage(alice, group, {
      resolution: 'archive_duplicates',
      keep_document_id: a,
      note: 'the same invoice twice',
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    expect(staged.body.operation).to.equal('inbox_duplicates_resolve.stage');
    expect(staged.headers.get('location')).to.equal(
      `/api/v1/cli/staged-operations/${staged.body.data.staged_operation_id}`,
    );
    expect(staged.body.data.plan).to.deep.equal({
      group_id: group,
      member_ids: [a, b].sort(),
      resolution: 'archive_duplicates',
      keep_document_id: a,
      archive_document_ids: [b],
      note: 'the same invoice twice',
    });
    const id = staged.body.data.staged_operation_id;
    const shown = await show(bob, id);
    expect(shown.body.data).to.include({ kind: 'inbox_duplicates_resolve', status: 'staged' });
    expect(shown.body.data.summary).to.deep.equal({
      group_id: group,
      resolution: 'archive_duplicates',
      members: 2,
      archives: 1,
    });

    expect((await approve(bob, id)).status).to.equal(200);
    const applied = await apply(bob, id);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.data.status).to.equal('applied');
    expect(applied.body.warnings).to.deep.equal([]);

    expect(await groups(alice)).to.deep.equal([]);
    const archived = await call<{ status: string; archived_reason: string }>(
      'GET',
      `/api/v1/cli/bookkeeping/inbox/documents/${b}`,
      { token: alice },
    );
    expect(archived.status).to.equal(200);
    expect(archived.body.data).to.include({ id: b, status: 'archived', archived_reason: `duplicate_of:${a}` });
    const kept = await call<{ status: string }>('GET', `/api/v1/cli/bookkeeping/inbox/documents/${a}`, {
      token: alice,
    });
    expect(kept.body.data.status).to.equal('open');

    const again = await apply(bob, id);
    expect(again.status).to.equal(200);
    expect(again.body.data.status).to.equal('applied');
    expect(again.body.warnings.map((w) => w.code)).to.deep.equal(['already_applied']);
    expect(again.body.warnings[0]?.details).to.deep.equal({ staged_operation_id: id });
  });

  it('carries each member as stored (received, file, extracted fields) as the context beside the plan, on the staging answer and on show', async () => {
    const { a, b, alice, bob, group } = await pairInbox();
    const staged = await call<ResolveData & { context: unknown }>('POST', resolvePath(group), {
      token: alice,
      body: { resolution: 'not_duplicates' },
    });
    expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
    const expected = [];
    for (const id of [a, b].sort()) {
      const doc = await call<{
        id: string;
        received_at: string;
        file: { name: string; mime: string; size: number };
        extracted: Record<string, unknown>;
      }>('GET', `/api/v1/cli/bookkeeping/inbox/documents/${id}`, { token: alice });
      expect(doc.status).to.equal(200);
      const d = doc.body.data;
      expected.push({
        id: d.id,
        received_at: d.received_at,
        file: { name: d.file.name, mime: d.file.mime, size: d.file.size },
        extracted: d.extracted,
      });
    }
    expect(staged.body.data.context).to.deep.equal({ inbox_documents: expected });
    expect(staged.body.data.plan).to.not.have.property('context');
    const shown = await show(bob, staged.body.data.staged_operation_id);
    expect((shown.body.data as { context?: unknown }).context).to.deep.equal({ inbox_documents: expected });
  });

  it('not_duplicates: apply records the dismissal; the pair never regroups, not even after a re-import of the same books; a new look-alike groups with them again, the dismissal shown', async () => {
    const { books, a, b, alice, bob, group } = await pairInbox();
    await groups(alice);
    const { id, applied } = await stageApproveApply(alice, bob, group, { resolution: 'not_duplicates' });
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    const dismissals = await docs('duplicate_dismissals', { org_id: books.orgId });
    expect(dismissals.map((d) => [d.document_ids, d.staged_operation_id, d.created_by])).to.deep.equal([
      [[a, b].sort(), id, 'bob'],
    ]);
    expect(await groups(alice)).to.deep.equal([]);

    const s = await stack();
    await s.load(books.file);
    expect(await groups(alice)).to.deep.equal([]);

    const c = books.doc({ received_at: '2026-03-03T09:00:00.000Z', extracted: invoice });
    await s.load(books.file);
    const after = await groups(alice);
    expect(
      after.map((g) => [g.group_id, g.documents.map((d) => d.document_id).sort(), g.dismissed_with]),
    ).to.deep.equal([[groupId(a, b, c), [a, b, c].sort(), [[a, b].sort()]]]);
  });

  it('answers 409 stale_group for a group whose members changed since it was listed', async () => {
    const { books, a, alice, group } = await pairInbox();
    expect((await groups(alice)).map((g) => g.group_id)).to.deep.equal([group]);
    books.doc({ received_at: '2026-03-03T09:00:00.000Z', extracted: invoice });
    await (await stack()).load(books.file);
    const res = await stage(alice, group, { resolution: 'archive_duplicates', keep_document_id: a });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.error).to.include({ code: 'stale_group', retryable: false });
    expect(res.body.error.details).to.deep.equal({ group_id: group });
  });

  it("answers 404 not_found for a group that never existed, and for another organisation's group", async () => {
    const mine = await pairInbox();
    const theirs = await pairInbox();
    await groups(theirs.alice);
    const unknown = await stage(mine.alice, 'grp_0123456789abcdef', { resolution: 'not_duplicates' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal('not_found');
    const other = await stage(mine.alice, theirs.group, { resolution: 'not_duplicates' });
    expect(other.status).to.equal(404);
    expect(other.body.error.code).to.equal('not_found');
  });

  it('answers 422 keep_document_not_member when the kept document is not in the group', async () => {
    const { alice, group } = await pairInbox();
    const res = await stage(alice, group, { resolution: 'archive_duplicates', keep_document_id: 'doc_elsewhere' });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('keep_document_not_member');
  });

  it('refuses unknown fields and a kept document with not_duplicates: 400 validation_failed', async () => {
    const { a, alice, group } = await pairInbox();
    for (const body of [
      { resolution: 'not_duplicates', keep_document_id: a },
      { resolution: 'archive_duplicates' },
      { resolution: 'merge' },
      { resolution: 'not_duplicates', extra: 1 },
    ]) {
      const res = await stage(alice, group, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
    }
  });

  it('makes the apply stale when a member changed between staging and apply; nothing is archived', async () => {
    const { books, a, b, alice, bob, group } = await pairInbox();
    const staged = await stage(alice, group, { resolution: 'archive_duplicates', keep_document_id: a });
    expect(staged.status).to.equal(201);
    const id = staged.body.data.staged_operation_id;
    expect((await approve(bob, id)).status).to.equal(200);
    const changed = books.file.inbox_documents.find((d) => d.id === b)!;
    changed.source = 'upload';
    await (await stack()).load(books.file);
    const applied = await apply(bob, id);
    expect(applied.status).to.equal(409);
    expect(applied.body.error.code).to.equal('stale_plan');
    expect((await show(bob, id)).body.data.status).to.equal('stale');
    const still = await call<{ status: string }>('GET', `/api/v1/cli/bookkeeping/inbox/documents/${b}`, {
      token: alice,
    });
    expect(still.body.data.status).to.equal('open');
  });

  it('answers the very same pending resolution with its operation (already_staged), another resolution of the group with 409 pending_operation', async () => {
    const { a, alice, group } = await pairInbox();
    const first = await stage(alice, group, { resolution: 'not_duplicates' });
    expect(first.status).to.equal(201);
    const same = await stage(alice, group, { resolution: 'not_duplicates' });
    expect(same.status).to.equal(200);
    expect(same.body.data.staged_operation_id).to.equal(first.body.data.staged_operation_id);
    expect(same.body.warnings.map((w) => w.code)).to.deep.equal(['already_staged']);
    const other = await stage(alice, group, { resolution: 'archive_duplicates', keep_document_id: a });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('pending_operation');
  });

  it('?dry_run=true answers the plan, hash and summary and stores nothing; the real staging that follows has the same plan and hash', async () => {
    const { books, a, alice, group } = await pairInbox();
    const body = { resolution: 'archive_duplicates', keep_document_id: a };
    const dry = await call<ResolveData & { dry_run: boolean; summary: unknown }>(
      'POST',
      `${resolvePath(group)}?dry_run=true`,
      { token: alice, body },
    );
    expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
    expect(dry.body.data).to.include({ dry_run: true, outcome: 'staged' });
    expect(dry.body.data.summary).to.deep.equal({
      group_id: group,
      resolution: 'archive_duplicates',
      members: 2,
      archives: 1,
    });
    expect(await docs('staged_operations', { org_id: books.orgId })).to.deep.equal([]);
    expect(await docs('scope_locks', { org_id: books.orgId })).to.deep.equal([]);
    const real = await stage(alice, group, body);
    expect(real.status).to.equal(201);
    expect(real.body.data.plan).to.deep.equal(dry.body.data.plan);
    expect(real.body.data.plan_hash).to.equal(dry.body.data.plan_hash);
  });

  it('refuses a token without inbox:stage: 403 forbidden', async () => {
    const { books, group } = await pairInbox();
    const token = await (
      await stack()
    ).token(books.orgId, ['inbox:read', 'bank:stage', 'ledger:stage', 'staged:read'], 'eve');
    const res = await stage(token, group, { resolution: 'not_duplicates' });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('forbidden');
  });
});
