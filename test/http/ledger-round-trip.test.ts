// The round trip of docs/guide/ledger-exchange.md "Import": books exported as
// an hledger journal or a beancount file, imported by `admin books import
// --format` into a fresh store (ids are global: a database of its own on the
// same servers), and exported again by the worker's export give the same
// bytes: the demo books and generated books of three seeds, with and without
// a chart.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureBeanCheck, ensureHledger } from '../../scripts/python-tools.js';
import type { BooksFile } from '../../shared/domain/books-file.js';
import { generateBooks } from '../../shared/demo/books-generator.js';
import { readExportPart } from '../../shared/storage/book-exports.js';
import { connectMongo } from '../../shared/storage/mongo.js';
import { chooseStoreAdapter, closeStoreAdapter } from '../../shared/storage/store-adapter.js';
import { exportBooks } from '../../worker/jobs/books-export.js';
import { exportTestBooks } from '../helpers/ledger-books.js';
import { stack } from '../helpers/stack.js';

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
      file: () =>
        generateBooks({ org_id: `org_demo_rt_${Math.random().toString(16).slice(2, 8)}`, size: 200, seed: 1 }),
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
});
