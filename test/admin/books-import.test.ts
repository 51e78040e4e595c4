import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { importBooks } from '../../shared/books/import.js';
import { Books } from '../helpers/books.js';
import { stack } from '../helpers/stack.js';

const run = promisify(execFile);
const adminJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'admin.js');

function smallBooks(): { books: Books; entry: string; txn: string } {
  const books = new Books();
  const account = books.account();
  const entry = books.invoice(12_000);
  const txn = books.txn(account, 12_000);
  books.link(txn, entry, 12_000);
  books.doc({ extracted: { vendor_name: 'Müller GmbH', invoice_number: null as never } });
  return { books, entry, txn };
}

async function countOrg(orgId: string): Promise<number> {
  const { db } = await stack();
  const names = ['ledger_entries', 'bank_accounts', 'bank_transactions', 'bank_links', 'inbox_documents'];
  const counts = await Promise.all(names.map((n) => db.collection(n).countDocuments({ org_id: orgId })));
  return counts.reduce((a, b) => a + b, 0) + (await db.collection('orgs').countDocuments({ _id: orgId } as never));
}

describe('admin books import', () => {
  it('imports a valid file and fills in version 1 and null link fields', async () => {
    const { books, entry } = smallBooks();
    const { db } = await stack();
    const result = await importBooks(db, books.file);
    expect(result.ok).to.equal(true);
    const stored = await db.collection('ledger_entries').findOne({ _id: entry } as never);
    expect(stored).to.include({ org_id: books.orgId, version: 1, reversal_of: null, reversed_by: null });
    const doc = await db.collection('inbox_documents').findOne({ org_id: books.orgId });
    expect(doc!.extracted).to.deep.equal({ vendor_name: 'Müller GmbH' });
  });

  it('refuses a bad file whole: nothing is written and every problem has a JSON pointer', async () => {
    const { books, entry } = smallBooks();
    const file = structuredClone(books.file);
    file.ledger_entries[0]!.lines[0]!.debit_minor = 12.5;
    file.bank_transactions[0]!.booking_date = '2026-02-30';
    Object.assign(file.bank_links[0]!, { colour: 'red' });
    Reflect.deleteProperty(file.bank_accounts[0]!, 'currency');
    const result = await importBooks((await stack()).db, file);
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors).to.deep.include.members([
      { pointer: '/ledger_entries/0/lines/0/debit_minor', message: 'must be integer' },
      { pointer: '/bank_transactions/0/booking_date', message: 'must be a real calendar date YYYY-MM-DD' },
      { pointer: '/bank_links/0/colour', message: 'is not a known field' },
      { pointer: '/bank_accounts/0/currency', message: 'is required' },
    ]);
    expect(await countOrg(books.orgId)).to.equal(0);
    expect(entry).to.be.a('string');
  });

  it('refuses unbalanced entries and dangling ids, writing nothing', async () => {
    const { books } = smallBooks();
    books.file.ledger_entries[0]!.lines[0]!.debit_minor = 11_999;
    books.file.bank_links[0]!.ledger_entry_id = 'le_nowhere';
    const result = await importBooks((await stack()).db, books.file);
    expect(result.ok ? [] : result.errors).to.deep.equal([
      { pointer: '/ledger_entries/0/lines', message: 'does not balance: debits 11999 ≠ credits 12000' },
      {
        pointer: '/bank_links/0/ledger_entry_id',
        message: 'refers to le_nowhere, which is not a ledger entry in this file',
      },
    ]);
    expect(await countOrg(books.orgId)).to.equal(0);
  });

  it('refuses ids that belong to another organisation', async () => {
    const { books, entry } = smallBooks();
    const { db } = await stack();
    await importBooks(db, books.file);
    const other = new Books();
    other.invoice(100, { id: entry });
    const result = await importBooks(db, other.file);
    expect(result.ok ? [] : result.errors).to.deep.equal([
      { pointer: '/ledger_entries/0/id', message: `${entry} belongs to another organisation` },
    ]);
    expect(await countOrg(other.orgId)).to.equal(0);
  });

  it('changes nothing on re-import of the same file: no version bump', async () => {
    const { books } = smallBooks();
    const { db } = await stack();
    await importBooks(db, books.file);
    const before = await db.collection('ledger_entries').find({ org_id: books.orgId }).toArray();
    const again = await importBooks(db, books.file);
    expect(again.ok && again.counts.ledger_entries).to.deep.equal({ inserted: 0, updated: 0, unchanged: 1 });
    expect(again.ok && again.counts.bank_links).to.deep.equal({ inserted: 0, updated: 0, unchanged: 1 });
    expect(await db.collection('ledger_entries').find({ org_id: books.orgId }).toArray()).to.deep.equal(before);
  });

  it('bumps version of a record whose content changed, and only that one', async () => {
    const { books, entry, txn } = smallBooks();
    const { db } = await stack();
    await importBooks(db, books.file);
    books.file.ledger_entries[0]!.description = 'Invoice, corrected';
    const result = await importBooks(db, books.file);
    expect(result.ok && result.counts.ledger_entries).to.deep.equal({ inserted: 0, updated: 1, unchanged: 0 });
    expect(await db.collection('ledger_entries').findOne({ _id: entry } as never)).to.include({
      version: 2,
      description: 'Invoice, corrected',
    });
    expect(await db.collection('bank_transactions').findOne({ _id: txn } as never)).to.include({ version: 1 });
  });

  it('re-imports hundreds of changed inbox documents while the duplicate overview is read: every change lands', async function () {
    this.timeout(120_000);
    const books = new Books();
    for (let i = 0; i < 300; i += 1)
      books.doc({
        extracted: {
          vendor_name: `Vendor ${i % 40}`,
          invoice_number: `INV-${i % 150}`,
          invoice_date: '2026-02-01',
          total_minor: 1_000 + i,
          currency: 'EUR',
        },
      });
    const { db, baseUrl } = await stack();
    expect((await importBooks(db, books.file)).ok).to.equal(true);
    const token = await (await stack()).token(books.orgId, ['inbox:read']);
    const read = (): Promise<unknown> =>
      fetch(`${baseUrl}/api/v1/cli/bookkeeping/inbox/duplicates`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.text());
    for (const doc of books.file.inbox_documents) doc.file = { ...doc.file, name: `${doc.file.name}-rescanned.pdf` };
    const [result] = await Promise.all([importBooks(db, books.file), read(), read(), read()]);
    expect(result.ok && result.counts.inbox_documents).to.deep.equal({ inserted: 0, updated: 300, unchanged: 0 });
    expect(await db.collection('inbox_documents').countDocuments({ org_id: books.orgId, version: 2 })).to.equal(300);
  });

  it('exits 2 from the command line for a refused file, listing pointers on stderr', async () => {
    const { books } = smallBooks();
    books.file.ledger_entries[0]!.currency = 'euro';
    const dir = await mkdtemp(join(tmpdir(), 'bookstage-import-'));
    const path = join(dir, 'books.json');
    await writeFile(path, JSON.stringify(books.file));
    const { config } = await stack();
    const failure = await run(process.execPath, [adminJs, 'books', 'import', path], {
      env: { ...process.env, MONGO_URL: config.mongoUrl },
    }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).to.equal(2);
    expect(failure?.stderr).to.include('/ledger_entries/0/currency');
    expect(await countOrg(books.orgId)).to.equal(0);
  });

  describe('chart of accounts', () => {
    const chart = (...codes: Array<[code: string, active?: boolean]>) =>
      codes.map(([code, active]) => ({
        code,
        name: `Account ${code}`,
        type: 'asset' as const,
        active: active ?? true,
      }));
    const storedChart = async (orgId: string) =>
      (await stack()).db
        .collection('ledger_accounts')
        .find({ org_id: orgId })
        .sort({ code: 1 })
        .project<{ _id: string; code: string; active: boolean; version: number }>({
          _id: 1,
          code: 1,
          active: 1,
          version: 1,
        })
        .toArray();

    it('stores a chart that covers every code, one record per code, unchanged on re-import', async () => {
      const { books } = smallBooks();
      books.file.accounts = chart(['8400'], ['1200'], ['1400'], ['1600'], ['4980', false]);
      const { db } = await stack();
      const result = await importBooks(db, books.file);
      expect(result.ok && result.counts.accounts).to.deep.equal({ inserted: 5, updated: 0, unchanged: 0 });
      const id = (code: string) => `${books.orgId}:${code}`;
      expect(await storedChart(books.orgId)).to.deep.equal([
        { _id: id('1200'), code: '1200', active: true, version: 1 },
        { _id: id('1400'), code: '1400', active: true, version: 1 },
        { _id: id('1600'), code: '1600', active: true, version: 1 },
        { _id: id('4980'), code: '4980', active: false, version: 1 },
        { _id: id('8400'), code: '8400', active: true, version: 1 },
      ]);
      // An inactive account still covers the entries booked on it.
      books.file.accounts[0]!.active = false;
      const again = await importBooks(db, books.file);
      expect(again.ok && again.counts.accounts).to.deep.equal({ inserted: 0, updated: 1, unchanged: 4 });
      expect((await storedChart(books.orgId)).find((a) => a.code === '8400')).to.include({ active: false, version: 2 });
      expect((await storedChart(books.orgId)).find((a) => a.code === '1200')).to.include({ version: 1 });
    });

    it('refuses a file whose chart misses its own codes: each missing code once, at its first use; nothing written', async () => {
      const { books } = smallBooks();
      books.invoice(500);
      books.file.accounts = chart(['1400'], ['1600']);
      const result = await importBooks((await stack()).db, books.file);
      expect(result.ok ? [] : result.errors).to.deep.equal([
        {
          pointer: '/bank_accounts/0/ledger_account',
          message: 'account 1200 is not in the chart of accounts (used 1 time)',
        },
        {
          pointer: '/ledger_entries/0/lines/1/account',
          message: 'account 8400 is not in the chart of accounts (used 2 times)',
        },
      ]);
      expect(await countOrg(books.orgId)).to.equal(0);
      expect(await storedChart(books.orgId)).to.deep.equal([]);
    });

    it('a later file without accounts is checked against the stored chart; without any chart any code loads', async () => {
      const { books } = smallBooks();
      const { db } = await stack();
      expect((await importBooks(db, books.file)).ok, 'no chart: any code').to.equal(true);
      books.file.accounts = chart(['1200'], ['1400'], ['1600'], ['8400']);
      expect((await importBooks(db, books.file)).ok).to.equal(true);
      delete books.file.accounts;
      books.invoice(-700);
      const result = await importBooks(db, books.file);
      expect(result.ok ? [] : result.errors).to.deep.equal([
        {
          pointer: '/ledger_entries/1/lines/0/account',
          message: 'account 4000 is not in the chart of accounts (used 1 time)',
        },
      ]);
      expect(await db.collection('ledger_entries').countDocuments({ org_id: books.orgId })).to.equal(1);
      expect((await storedChart(books.orgId)).map((a) => a.code)).to.deep.equal(['1200', '1400', '1600', '8400']);
    });

    it('refuses a repeated code, a code outside the format and an unknown type', async () => {
      const { books } = smallBooks();
      books.file.accounts = [
        ...chart(['1200'], ['1400'], ['1600'], ['8400'], ['1200']),
        { code: '12 00', name: 'Spaced', type: 'asset', active: true },
        { code: 'a'.repeat(33), name: 'Long', type: 'asset', active: true },
        { code: '9000', name: 'Revenue', type: 'revenue' as never, active: true },
      ];
      const result = await importBooks((await stack()).db, books.file);
      expect(result.ok ? [] : result.errors.map((e) => e.pointer)).to.deep.equal([
        '/accounts/5/code',
        '/accounts/6/code',
        '/accounts/7/type',
      ]);
      books.file.accounts = books.file.accounts.slice(0, 5);
      const repeated = await importBooks((await stack()).db, books.file);
      expect(repeated.ok ? [] : repeated.errors).to.deep.equal([
        { pointer: '/accounts/4/code', message: 'duplicates the code 1200 of /accounts/0' },
      ]);
      expect(await countOrg(books.orgId)).to.equal(0);
    });

    it('the command exits 2 and names the missing codes on stderr', async () => {
      const { books } = smallBooks();
      books.file.accounts = chart(['1200'], ['1400'], ['1600']);
      const dir = await mkdtemp(join(tmpdir(), 'bookstage-import-'));
      const path = join(dir, 'books.json');
      await writeFile(path, JSON.stringify(books.file));
      const { config } = await stack();
      const failure = await run(process.execPath, [adminJs, 'books', 'import', path], {
        env: { ...process.env, MONGO_URL: config.mongoUrl },
      }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code).to.equal(2);
      expect(failure?.stderr).to.include(
        '/ledger_entries/0/lines/1/account: account 8400 is not in the chart of accounts (used 1 time)',
      );
      expect(await countOrg(books.orgId)).to.equal(0);
      expect(await storedChart(books.orgId)).to.deep.equal([]);
    });
  });
});
