// The round trip of docs/guide/ledger-exchange.md "Import": books exported as
// an hledger journal or a beancount file, imported by `admin books import
// --format` into a fresh store (ids are global: a database of its own on the
// same servers), and exported again by the worker's export give the same
// bytes: the demo books (`npm start`'s) and generated books of three seeds,
// with and without a chart (test/helpers/ledger-books.ts), and books where operations were applied (their `operation` and
// `approved-by` come back as the records' provenance).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureBeanCheck, ensureHledger } from '../../scripts/python-tools.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { DEMO_BOOKS, generateBooks } from '../../shared/demo/books-generator.js';
import { readExportPart } from '../../shared/storage/book-exports.js';
import { connectMongo } from '../../shared/storage/mongo.js';
import { chooseStoreAdapter, closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import { exportBooks } from '../../worker/jobs/books-export.js';
import { Books } from '../helpers/books.js';
import { call } from '../helpers/http.js';
import { exportTestBooks } from '../helpers/ledger-books.js';
import { stack } from '../helpers/stack.js';
import { actors, apply, approve } from '../helpers/staged.js';
import { bankFeeEntry } from '../helpers/bank-fee.js';

const run = promisify(execFile);
const adminJs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'admin.js');
const FORMATS = ['hledger', 'beancount'] as const;
type Format = (typeof FORMATS)[number];

/** The test store's URL with another database name: a fresh, empty store on the same servers. */
function freshStoreUrl(suffix: string): string {
  const url = new URL(process.env.MONGO_URL!);
  url.pathname = `${url.pathname}_${suffix}`;
  return url.toString();
}

/** The worker's export of an organisation in that store, parts joined. */
async function exportFrom(url: string, orgId: string, format: Format): Promise<string> {
  const mongo = await connectMongo(url);
  try {
    chooseStoreAdapter(mongo.db, { postgresUrl: process.env.FERRETDB_POSTGRES_URL || undefined });
    const stored = await exportBooks(mongo.db, orgId, { format, through: null });
    const parts: string[] = [];
    for (let i = 0; i < stored.parts; i += 1) parts.push((await readExportPart(mongo.db, orgId, stored.export_id, i))!);
    return parts.join('');
  } finally {
    await closeStoreAdapter(mongo.db);
    await mongo.client.close();
  }
}

/** Each entry's id, status and reversal references in that store, by id. */
async function entryStates(url: string, orgId: string): Promise<unknown[][]> {
  const mongo = await connectMongo(url);
  try {
    const docs = await mongo.db.collection('ledger_entries').find({ org_id: orgId }).toArray();
    return docs
      .map((d): unknown[] => [d._id, d.status, d.reversal_of ?? null, d.reversed_by ?? null])
      .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
  } finally {
    await mongo.client.close();
  }
}

/** The provenance each record of the organisation holds in that store, `collection/id` → value, where there is one. */
async function provenances(url: string, orgId: string): Promise<Record<string, unknown>> {
  const mongo = await connectMongo(url);
  try {
    const out: Record<string, unknown> = {};
    for (const collection of ['ledger_entries', 'bank_transactions', 'bank_links']) {
      for (const d of await mongo.db.collection(collection).find({ org_id: orgId }).toArray()) {
        if (d.provenance) out[`${collection}/${String(d.ledger_entry_id ?? d._id)}`] = d.provenance;
      }
    }
    return out;
  } finally {
    await mongo.client.close();
  }
}

async function dropStore(url: string): Promise<void> {
  const mongo = await connectMongo(url);
  try {
    await mongo.db.dropDatabase();
  } finally {
    await mongo.client.close();
  }
}

describe('ledger round trip: export, import into a fresh store, export again gives the same bytes', function () {
  this.timeout(600_000);
  let dir: string;

  before(() => {
    ensureHledger();
    ensureBeanCheck();
    dir = mkdtempSync(join(tmpdir(), 'bookstage-round-trip-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Array<{ name: string; file: () => BooksFile }> = [
    {
      name: 'the demo books',
      file: () => generateBooks(DEMO_BOOKS),
    },
  ];
  for (const seed of [1, 2, 3])
    for (const chart of [true, false])
      cases.push({
        name: `seed ${seed}, ${chart ? 'with a chart' : 'without a chart'}`,
        file: () => exportTestBooks(seed, chart),
      });

  for (const c of cases) {
    it(c.name, async () => {
      const s = await stack();
      const file = c.file();
      await s.load(file);
      const token = await s.token(file.org.id, ['books:read']);
      for (const format of FORMATS) {
        const res = await fetch(`${s.baseUrl}/api/v1/cli/books/export?format=${format}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(res.status).to.equal(200);
        const one = await res.text();
        const path = join(dir, `${file.org.id}.${format}`);
        writeFileSync(path, one);

        const url = freshStoreUrl(`rt${Math.random().toString(16).slice(2, 8)}`);
        try {
          const imported = await run(
            process.execPath,
            [adminJs, 'books', 'import', path, '--format', format, '--org', file.org.id],
            { env: { ...process.env, MONGO_URL: url }, maxBuffer: 1 << 24 },
          );
          expect(JSON.parse(imported.stdout)).to.include({ org_id: file.org.id });
          // The entries come back with their statuses: a reversed entry is reversed by its reversal again.
          const original = file.ledger_entries
            .map((e): unknown[] => [e.id, e.status, e.reversal_of ?? null, e.reversed_by ?? null])
            .sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
          expect(original.some((e) => e[1] === 'reversed')).to.equal(true);
          expect(await entryStates(url, file.org.id)).to.deep.equal(original);
          const two = await exportFrom(url, file.org.id, format);
          expect(two.length, format).to.equal(one.length);
          expect(two, format).to.equal(one);
        } finally {
          await dropStore(url);
        }
      }
    });
  }

  it('books where operations were applied: their operation and approvers come back, the bytes the same', async () => {
    const books = new Books();
    const account = books.account();
    const fee = books.txn(account, -350, { booking_date: '2026-03-02', counterparty_name: 'The Bank' });
    const invoice = books.invoice(12_000, { entry_date: '2026-02-01' });
    const payment = books.txn(account, 12_000, { booking_date: '2026-03-05', remittance_info: 'invoice' });
    const s = await stack();
    await s.load(books.file);
    const who = await actors(books.orgId);
    // A booking of the fee, approved by bob, and a match of the payment, approved by dave.
    const booked = await call<{ staged_operation_id: string; plan: { ledger_entry_id: string } }>(
      'POST',
      '/api/v1/cli/ledger/entries/stage',
      {
        token: who.alice,
        body: bankFeeEntry(books.cp('bank'), { bank_transaction_id: fee }),
      },
    );
    expect(booked.status, JSON.stringify(booked.body)).to.equal(201);
    const feeOp = booked.body.data.staged_operation_id;
    const feeEntry = booked.body.data.plan.ledger_entry_id;
    expect((await approve(who.bob, feeOp)).status).to.equal(200);
    expect((await apply(who.bob, feeOp)).status).to.equal(200);
    const matched = await call<{ staged_operation_id: string }>('POST', '/api/v1/cli/bank-matches/match/stage', {
      token: who.alice,
      body: {
        bank_account_id: account,
        matches: [{ bank_transaction_id: payment, ledger_entry_id: invoice, amount_minor: 12_000 }],
      },
    });
    expect(matched.status, JSON.stringify(matched.body)).to.equal(201);
    const matchOp = matched.body.data.staged_operation_id;
    expect((await approve(who.dave, matchOp)).status).to.equal(200);
    expect((await apply(who.bob, matchOp)).status).to.equal(200);

    const token = await s.token(books.orgId, ['books:read']);
    for (const format of FORMATS) {
      const res = await fetch(`${s.baseUrl}/api/v1/cli/books/export?format=${format}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).to.equal(200);
      const one = await res.text();
      const path = join(dir, `${books.orgId}-ops.${format}`);
      writeFileSync(path, one);
      const url = freshStoreUrl(`rt${Math.random().toString(16).slice(2, 8)}`);
      try {
        await run(process.execPath, [adminJs, 'books', 'import', path, '--format', format, '--org', books.orgId], {
          env: { ...process.env, MONGO_URL: url },
          maxBuffer: 1 << 24,
        });
        // The fresh store has no operations: the records hold who wrote them.
        const fromFee = { operation: feeOp, approved_by: ['bob'] };
        const fromMatch = { operation: matchOp, approved_by: ['dave'] };
        expect(await provenances(url, books.orgId), format).to.deep.equal({
          [`ledger_entries/${feeEntry}`]: fromFee,
          [`bank_links/${feeEntry}`]: fromFee,
          [`bank_links/${invoice}`]: fromMatch,
        });
        const two = await exportFrom(url, books.orgId, format);
        expect(two, format).to.equal(one);
      } finally {
        await dropStore(url);
      }
    }
  });
});
