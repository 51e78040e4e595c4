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
});
