// `npm run docs:tables`: rewrite the generated tables of docs/reference/*.md
// from the code (scripts/docs-tables/render.ts says which).
// With `--check` it writes nothing and exits 1 when a table is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_BLOCKS, withFreshBlocks } from './docs-tables/render.js';

/** The checkout's root (this file is dist/scripts/docs-tables.js). */
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function main(): number {
  const check = process.argv.includes('--check');
  const stale: string[] = [];
  for (const [path, blocks] of Object.entries(DOCUMENT_BLOCKS)) {
    const file = join(projectRoot, path);
    const text = readFileSync(file, 'utf8');
    const fresh = withFreshBlocks(text, blocks);
    if (fresh === text) continue;
    stale.push(path);
    if (!check) writeFileSync(file, fresh);
  }
  if (stale.length === 0) process.stderr.write('docs:tables: every generated table is up to date\n');
  else if (check) process.stderr.write(`docs:tables: out of date: ${stale.join(', ')}; run npm run docs:tables\n`);
  else process.stderr.write(`docs:tables: rewrote ${stale.join(', ')}\n`);
  return check && stale.length > 0 ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (err) {
  process.stderr.write(`docs:tables: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
