// `bookstage inbox resolve` and an apply run twice, as a subprocess against the real stack.
import { expect } from 'chai';
import { Books } from '../helpers/books.js';
import { duplicatePair } from '../helpers/inbox.js';
import { approve, docs } from '../helpers/staged.js';
import { stack } from '../helpers/stack.js';
import { envelopeOf, runCli } from './run-cli.js';

const invoice = {
  vendor_name: 'Acme GmbH',
  invoice_number: 'RE-9',
  invoice_date: '2026-02-20',
  total_minor: 5_000,
  currency: 'EUR',
};

async function pair() {
  const books = new Books();
  const { a, b, group } = duplicatePair(books, invoice);
  const s = await stack();
  await s.load(books.file);
  return {
    books,
    a,
    b,
    group,
    url: s.baseUrl,
    alice: await s.token(books.orgId, ['inbox:stage', 'inbox:read', 'staged:read'], 'alice'),
    bob: await s.token(books.orgId, ['staged:read', 'staged:approve', 'staged:apply'], 'bob'),
  };
}

describe('bookstage inbox resolve', function () {
  this.timeout(90_000);

  it('--keep stages archive_duplicates and prints what apply does to each member (exit 0); applying twice prints "already applied; nothing written" (exit 0)', async () => {
    const p = await pair();
    const run = await runCli(['inbox', 'resolve', p.group, '--keep', p.a, '--note', 'scanned twice'], {
      url: p.url,
      token: p.alice,
    });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^Staged duplicate resolution stg_[0-9a-f]+\./);
    expect(run.stdout).to.include(
      `Resolves duplicate group ${p.group}: keep ${p.a}, archive the others (note: scanned twice)`,
    );
    expect(run.stdout).to.include(`archived (duplicate_of:${p.a})`);
    const [staged] = await docs('staged_operations', { org_id: p.books.orgId });
    const id = String(staged!._id);
    expect((await approve(p.bob, id)).status).to.equal(200);

    const first = await runCli(['staged', 'apply', id], { url: p.url, token: p.bob });
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.not.include('already applied');
    const again = await runCli(['staged', 'apply', id], { url: p.url, token: p.bob });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout.split('\n')[0]).to.equal('already applied; nothing written');
  });

  it('--not-duplicates stages not_duplicates; --json prints the envelope', async () => {
    const p = await pair();
    const run = await runCli(['inbox', 'resolve', p.group, '--not-duplicates', '--json'], {
      url: p.url,
      token: p.alice,
    });
    expect(run.code, run.stderr).to.equal(0);
    const env = envelopeOf<{ plan: Record<string, unknown> }>(run.stdout);
    expect(env.data.plan).to.deep.include({
      group_id: p.group,
      resolution: 'not_duplicates',
      keep_document_id: null,
      archive_document_ids: [],
    });
  });

  it('neither or both of --keep and --not-duplicates is a usage error (exit 2); a kept document outside the group is exit 3', async () => {
    const p = await pair();
    expect((await runCli(['inbox', 'resolve', p.group], { url: p.url, token: p.alice })).code).to.equal(2);
    expect(
      (await runCli(['inbox', 'resolve', p.group, '--keep', p.a, '--not-duplicates'], { url: p.url, token: p.alice }))
        .code,
    ).to.equal(2);
    const outside = await runCli(['inbox', 'resolve', p.group, '--keep', 'doc_elsewhere'], {
      url: p.url,
      token: p.alice,
    });
    expect(outside.code).to.equal(3);
    expect(outside.stdout + outside.stderr).to.include('keep_document_not_member');
  });
});
