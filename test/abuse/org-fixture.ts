// Two organisations with something of every kind an endpoint can name (an
// account, transactions, an entry, inbox duplicates, a staged operation, a
// finished job), and tokens for the actors the authorisation and load tests
// play. Ids carry the org's random uid, so another org's ids are easy to spot.
import { expect } from 'chai';
import { TOKEN_SCOPES, type TokenScope } from '../../shared/domain/token-scopes.js';
import { Books } from '../helpers/books.js';
import { call, poll } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { collections } from '../../shared/storage/collections.js';
import { decodeJobResult } from '../../shared/storage/job-results.js';

export interface OrgFixture {
  books: Books;
  uid: string;
  orgId: string;
  account: string;
  txn: string;
  counterparty: string;
  /** Entries alice may stage a reversal of (one per load client call is not needed: reversals of one entry share a scope). */
  entries: string[];
  /** An operation alice staged. */
  operation: string;
  /** A finished job alice started. */
  job: string;
  /** All scopes, actor alice (the creator). */
  alice: string;
  /** All scopes, actor bob (an approver). */
  bob: string;
  /** staged:read and staged:apply only, actor carol: may not see alice's operation. */
  carol: string;
}

export async function orgFixture(entryCount = 3): Promise<OrgFixture> {
  const s = await stack();
  const books = new Books();
  const account = books.account();
  const { txn } = books.linkedTxn(account, 5_000);
  const entries = Array.from({ length: entryCount }, () => books.invoice(1_000));
  const sha = 'a'.repeat(64);
  books.doc({ file: { sha256: sha, name: 'a.pdf', size: 1, mime: 'application/pdf' } });
  books.doc({ file: { sha256: sha, name: 'b.pdf', size: 1, mime: 'application/pdf' } });
  // A chart whose names carry the uid: the chart read shows whose it is.
  books.file.accounts = (['1200', '1400', '1600', '8400'] as const).map((code) => ({
    code,
    name: `Account ${code} of ${books.uid}`,
    type: code === '8400' ? ('income' as const) : ('asset' as const),
    active: true,
  }));
  await s.load(books.file);
  const all: TokenScope[] = [...TOKEN_SCOPES];
  const alice = await s.token(books.orgId, all, 'alice');
  const bob = await s.token(books.orgId, all, 'bob');
  const carol = await s.token(books.orgId, ['staged:read', 'staged:apply'], 'carol');

  const staged = await call<{ staged_operation_id: string }>(
    'POST',
    `/api/v1/cli/ledger/entries/${entries[0]}/reverse/stage`,
    { token: alice, body: {} },
  );
  expect(staged.status, JSON.stringify(staged.body)).to.equal(201);
  // A finished job of alice's: a wait=0 call answers 202 with its job, or 201 when the
  // worker finished before the API looked (a quick worker on an idle machine); then its
  // job is the one whose stored answer names the operation.
  const quick = await call<{ staged_operation_id: string }>(
    'POST',
    `/api/v1/cli/ledger/entries/${entries[1]}/reverse/stage`,
    { token: alice, body: {}, headers: { prefer: 'wait=0' } },
  );
  expect(quick.status, JSON.stringify(quick.body)).to.be.oneOf([201, 202]);
  let job: string;
  if (quick.status === 202) {
    const jobPath = quick.headers.get('location')!;
    job = jobPath.split('/').pop()!;
    await poll(jobPath, alice, (a) => a.status !== 202);
  } else {
    const results = (await collections(s.db).jobResults.find({ org_id: books.orgId }).toArray()).map((r) =>
      decodeJobResult(r),
    );
    const result = results.find(
      (r) => r.answer.outcome === 'staged' && r.answer.staged_operation_id === quick.body.data.staged_operation_id,
    );
    expect(result, 'the stored answer of the quick job').to.not.equal(undefined);
    job = result!._id;
  }
  return {
    books,
    uid: books.uid,
    orgId: books.orgId,
    account,
    txn,
    counterparty: books.cp('a'),
    entries,
    operation: staged.body.data.staged_operation_id,
    job,
    alice,
    bob,
    carol,
  };
}
