// `npm run build` deletes compiled files whose TypeScript source is gone
// (scripts/build.mjs): tsc never does, and a test file left behind in dist/
// would still run against modules that moved.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// dist/test/unit → the project root.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('npm run build: compiled files of removed sources', () => {
  it('deletes a compiled file, its map and declaration whose source is gone, and keeps the rest', async () => {
    const { pruneOrphans } = (await import(pathToFileURL(join(root, 'scripts', 'build.mjs')).href)) as {
      pruneOrphans: (base: string) => void;
    };
    const base = mkdtempSync(join(tmpdir(), 'bookstage-prune-'));
    try {
      const write = (path: string): void => {
        mkdirSync(dirname(join(base, path)), { recursive: true });
        writeFileSync(join(base, path), '');
      };
      ['test/unit/kept.test.ts', 'scripts/tool.mjs'].forEach(write);
      const compiled = [
        'dist/test/unit/kept.test.js',
        'dist/test/unit/kept.test.js.map',
        'dist/test/unit/moved.test.js',
        'dist/test/unit/moved.test.js.map',
        'dist/test/unit/moved.test.d.ts',
        'dist/scripts/tool.js',
        'dist/web/page.js',
      ];
      compiled.forEach(write);
      pruneOrphans(base);
      expect(compiled.filter((path) => existsSync(join(base, path)))).to.deep.equal([
        'dist/test/unit/kept.test.js',
        'dist/test/unit/kept.test.js.map',
        'dist/scripts/tool.js',
        'dist/web/page.js',
      ]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
