// Data safety: an import that fails half-way leaves the books as
// they were (shared/books/import.ts undoes what it wrote), and staging calls
// of every kind never change the books (docs/reference/http-api.md §6).
import { expect } from 'chai';
import type { Collection, Db } from 'mongodb';
import { importBooks } from '../../shared/books/import.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { stack } from '../helpers/stack.js';
import { collectionChecksum } from './snapshot.js';
import { canonicalJson } from '../../shared/domain/plan-hash.js';

const BOOK_COLLECTIONS = ['ledger_entries', 'bank_accounts', 'bank_transactions', 'bank_links', 'inbox_documents'];

/** Checksums of one org's books: its record in orgs and its documents in every books collection (without versions: `withVersions` false). */
async function booksOf(orgId: string, withVersions = true): Promise<Record<string, string>> {
  const { db } = await stack();
  const sum = async (name: string, filter: Record<string, unknown>) =>
    withVersions
      ? collectionChecksum(db, name, filter)
      : canonicalJson(
          (
            await db
              .collection(name)
              .find(filter as never)
              .sort({ _id: 1 })
              .toArray()
          ).map(({ version, ...rest }) => JSON.parse(JSON.stringify(rest)) as unknown),
        );
  const out: Record<string, string> = { orgs: await sum('orgs', { _id: orgId }) };
  for (const name of BOOK_COLLECTIONS) out[name] = await sum(name, { org_id: orgId });
  return out;
}

/** Every record's version, by id. */
async function versionsOf(orgId: string): Promise<Map<string, number>> {
  const { db } = await stack();
  const out = new Map<string, number>();
  for (const name of BOOK_COLLECTIONS) {
    for (const doc of await db
      .collection(name)
      .find({ org_id: orgId } as never)
      .toArray())
      out.set(String(doc._id), Number(doc.version));
  }
  return out;
}

/**
 * The real database, except that the first bulk write to `failOn` is made and
 * then reported as failed: a connection lost after the server applied a
 * write, the worst moment for an importer without transactions.
 */
function failingAfterWrite(db: Db, failOn: string): Db {
  let armed = true;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'collection') return Reflect.get(target, prop, receiver) as unknown;
      return (name: string) => {
        const collection = target.collection(name);
        if (name !== failOn) return collection;
        return new Proxy(collection, {
          get(c: Collection, p, r) {
            if (p !== 'bulkWrite') return Reflect.get(c, p, r) as unknown;
            return async (...args: Parameters<Collection['bulkWrite']>) => {
              const result = await c.bulkWrite(...args);
              if (armed) {
                armed = false;
                throw new Error('connection lost (injected after the write)');
              }
              return result;
            };
          },
        });
      };
    },
  });
}

describe('abuse: data safety', function () {
  this.timeout(120_000);

  it('an import that fails half-way leaves the books exactly as before', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const entry = books.invoice(10_000);
    const txn = books.txn(account, 10_000);
    books.link(txn, entry, 10_000);
    books.doc();
    await s.load(books.file);
    const beforeContent = await booksOf(books.orgId, false);
    const versionsBefore = await versionsOf(books.orgId);

    // The second file changes a record of every section and adds new ones; the last section's write "fails".
    const next = structuredClone(books.file);
    next.org.name = 'Renamed';
    next.bank_accounts[0]!.name = 'Renamed account';
    next.ledger_entries[0]!.description = 'Changed';
    next.bank_transactions[0]!.remittance_info = 'changed';
    next.bank_links[0]!.created_by = 'bob';
    next.inbox_documents[0]!.source = 'upload';
    const more = new Books();
    next.ledger_entries.push({
      ...structuredClone(next.ledger_entries[0]!),
      id: more.id('le'),
      reversal_of: null,
      reversed_by: null,
    });
    next.inbox_documents.push({ ...structuredClone(next.inbox_documents[0]!), id: more.id('doc') });

    let failure: unknown = null;
    await importBooks(failingAfterWrite(s.db, 'inbox_documents'), next).catch((err: unknown) => {
      failure = err;
    });
    expect(String(failure)).to.include('connection lost');
    // As before in content; versions only grow (docs/operating/reliability.md): each record the import replaced and put back is one version up.
    expect(await booksOf(books.orgId, false)).to.deep.equal(beforeContent);
    const versionsAfter = await versionsOf(books.orgId);
    for (const [id, version] of versionsBefore) expect(versionsAfter.get(id), id).to.be.at.least(version);
    expect(versionsAfter.get(entry), 'the entry the import changed and undid').to.be.greaterThan(
      versionsBefore.get(entry)!,
    );

    // The same import run again, without the fault, completes it.
    const again = await importBooks(s.db, next);
    expect(again.ok).to.equal(true);
    expect(await booksOf(books.orgId, false)).to.not.deep.equal(beforeContent);
  });

  it('staging of every kind, refusals included, never changes the books', async () => {
    const s = await stack();
    const books = new Books();
    const account = books.account();
    const linked = books.linkedTxn(account, 5_000);
    const open = books.invoice(3_000);
    const loose = books.txn(account, 3_000);
    const reversed = books.invoice(2_000);
    books.file.ledger_entries.find((e) => e.id === reversed)!.reversed_by = open;
    const sha = 'b'.repeat(64);
    books.doc({ file: { sha256: sha, name: 'a.pdf', size: 1, mime: 'application/pdf' } });
    books.doc({ file: { sha256: sha, name: 'b.pdf', size: 1, mime: 'application/pdf' } });
    await s.load(books.file);
    const token = await s.token(books.orgId, ['bank:stage', 'ledger:stage', 'inbox:read', 'staged:read'], 'alice');
    const before = await booksOf(books.orgId);

    const statuses: number[] = [];
    const stage = async (path: string, body: unknown): Promise<void> => {
      statuses.push((await call('POST', path, { token, body })).status);
    };
    const statement = { end_date: '2026-02-28', currency: 'EUR' };
    await stage('/api/v1/cli/bank-matches/reconcile/stage', {
      bank_account_id: account,
      statement: { ...statement, closing_balance_minor: 5_000 },
      transaction_ids: [linked.txn],
    });
    await stage('/api/v1/cli/bank-matches/reconcile/stage', {
      bank_account_id: account,
      statement: { ...statement, closing_balance_minor: 1 },
      transaction_ids: [linked.txn],
    });
    await stage('/api/v1/cli/bank-matches/reconcile/stage', {
      bank_account_id: account,
      statement: { ...statement, closing_balance_minor: 3_000 },
      transaction_ids: [loose],
    });
    await stage('/api/v1/cli/bank-matches/ledger-link-repair/stage', {
      bank_account_id: account,
      counterparty_id: books.cp('a'),
      as_of: '2026-02-28',
    });
    await stage('/api/v1/cli/bank-matches/ledger-link-repair/stage', {
      bank_account_id: account,
      counterparty_id: books.cp('nobody'),
      as_of: '2026-02-28',
    });
    await stage(`/api/v1/cli/ledger/entries/${linked.entry}/reverse/stage`, { reversal_date: '2026-03-01' });
    await stage(`/api/v1/cli/ledger/entries/${reversed}/reverse/stage`, {});
    await stage(`/api/v1/cli/ledger/entries/${open}/reverse/stage`, { reversal_date: '2020-01-01' });
    statuses.push((await call('GET', '/api/v1/cli/bookkeeping/inbox/duplicates', { token })).status);

    // Staged, refused and read answers all came back (none 5xx), and the books did not move.
    expect(
      statuses.every((st) => st < 500),
      JSON.stringify(statuses),
    ).to.equal(true);
    expect(statuses).to.include(201);
    expect(statuses.some((st) => st >= 400)).to.equal(true);
    expect(await booksOf(books.orgId)).to.deep.equal(before);
  });
});
