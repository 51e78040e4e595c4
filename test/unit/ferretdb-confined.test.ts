// FerretDB's knowledge stays in its adapter's folder (docs/design/architecture.md
// "The store port"): outside shared/storage/ferretdb/, no source file asks
// whether the server is FerretDB, speaks to PostgreSQL, reads FerretDB's
// buildInfo field or names its metadata tables. What differs on FerretDB is
// the adapter's choice (its DriverStrategy), never a fork in the caller.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceFiles } from '../../scripts/docs-tables/links.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FOLDERS = ['api', 'worker', 'shared', 'cli', 'web', 'scripts', 'bench'];

/** What only the FerretDB folder may write. */
const FERRETDB_ONLY: ReadonlyArray<[string, RegExp]> = [
  ['isFerretDb', /\bisFerretDb\b/],
  ['the pg driver', /\bfrom\s+['"]pg['"]|\brequire\(\s*['"]pg['"]\s*\)|\bimport\(\s*['"]pg['"]\s*\)/],
  ["FerretDB's buildInfo field", /\bferretdbVersion\b/],
  ["FerretDB's metadata tables", /_ferretdb_\w+/],
];

/** Allowed outside the folder: it measures PostgreSQL's own plans on FerretDB's tables (eslint.config.js allows it `pg` too). */
const EXEMPT = new Set(['bench/store-levers.ts']);

/** `file: what` for every FerretDB-only name in a `.ts` source outside the folder. */
export function ferretDbLeaks(files: readonly string[], read: (file: string) => string): string[] {
  const out: string[] = [];
  for (const file of files) {
    if (!file.endsWith('.ts') || file.startsWith('shared/storage/ferretdb/') || EXEMPT.has(file)) continue;
    const text = read(file);
    for (const [what, pattern] of FERRETDB_ONLY) if (pattern.test(text)) out.push(`${file}: ${what}`);
  }
  return out;
}

describe('FerretDB stays in shared/storage/ferretdb/', () => {
  it('no source file outside the folder names isFerretDb, pg, ferretdbVersion or a FerretDB table', () => {
    const leaks = ferretDbLeaks(sourceFiles(root, FOLDERS), (file) => readFileSync(join(root, file), 'utf8'));
    expect(leaks).to.deep.equal([]);
  });

  it('finds each such name, and passes the folder itself', () => {
    const texts: Record<string, string> = {
      'shared/storage/where-in.ts': "import { isFerretDb } from './ferretdb/server.js';",
      'worker/x.ts': "import pg from 'pg';",
      'api/y.ts': 'const v = info.ferretdbVersion;',
      'shared/storage/z.ts': "const t = '_ferretdb_database_metadata';",
      'shared/storage/ferretdb/select.ts': "import pg from 'pg'; isFerretDb(db); info.ferretdbVersion;",
      'bench/store-levers.ts': "import pg from 'pg';",
      'shared/storage/clean.ts': 'const pages = 1; // FerretDB reads in SQL elsewhere',
    };
    expect(ferretDbLeaks(Object.keys(texts), (file) => texts[file]!)).to.deep.equal([
      'shared/storage/where-in.ts: isFerretDb',
      'worker/x.ts: the pg driver',
      "api/y.ts: FerretDB's buildInfo field",
      "shared/storage/z.ts: FerretDB's metadata tables",
    ]);
  });
});
